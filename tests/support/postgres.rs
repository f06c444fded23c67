//! A real PostgreSQL for the tests: the server `scripts/test-services.sh` starts (its URL in
//! `MARSEILLAIS_TEST_POSTGRES`), one fresh database per test (created here, dropped on drop), and
//! a TCP proxy in front of it that a test can cut and restore, to see what the store does while
//! Postgres is unreachable. Without the variable the tests skip with a loud message, except when
//! `CI` is set (`.ci/run`), where they fail.

use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream, UnixStream};
use tokio::sync::watch;
use tokio_postgres::config::Host;

/// The variable `scripts/test-services.sh` sets.
pub const URL_VARIABLE: &str = "MARSEILLAIS_TEST_POSTGRES";

/// The server's URL, or None (after a loud message) when there is none; panics under CI.
pub fn server_url(test: &str) -> Option<String> {
    if let Ok(url) = std::env::var(URL_VARIABLE)
        && !url.is_empty()
    {
        return Some(url);
    }
    let message = format!(
        "test `{test}` needs PostgreSQL: run it through scripts/test-services.sh \
         (which sets {URL_VARIABLE}), e.g. scripts/test-services.sh cargo test --release --test system store::postgres::"
    );
    if std::env::var_os("CI").is_some() {
        panic!("CI is set: {message}");
    }
    eprintln!("\n!!! SKIPPED: {message}\n");
    None
}

/// `url` with its database name replaced by `name` (the query, e.g. `?host=/dir`, is kept).
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let root = match base[after_scheme..].find('/') {
        Some(i) => &base[..after_scheme + i],
        None => base,
    };
    match query {
        Some(query) => format!("{root}/{name}?{query}"),
        None => format!("{root}/{name}"),
    }
}

async fn admin(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connect to the test PostgreSQL");
    tokio::spawn(connection);
    client
}

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A database of its own for one test, dropped (connections and all) when this is dropped.
pub struct TestDatabase {
    server: String,
    pub name: String,
    /// The URL of this database (what `--store` and `PostgresStore::open` take).
    pub url: String,
}

impl TestDatabase {
    pub async fn create(server: &str, label: &str) -> TestDatabase {
        let name = format!(
            "t_{}_{}_{}",
            label.replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        )
        .to_lowercase();
        let client = admin(server).await;
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .expect("create the test database");
        TestDatabase {
            server: server.to_owned(),
            url: with_database(server, &name),
            name,
        }
    }

    /// A plain connection to this database, to look at the tables directly.
    pub async fn connect(&self) -> tokio_postgres::Client {
        admin(&self.url).await
    }

    /// The URL of this database reached through `proxy` (TCP on 127.0.0.1).
    pub fn url_through(&self, proxy: &Proxy) -> String {
        let config = tokio_postgres::Config::from_str(&self.server).expect("test URL");
        let user = config.get_user().unwrap_or("postgres");
        let auth = match config.get_password() {
            Some(password) => format!("{user}:{}", String::from_utf8_lossy(password)),
            None => user.to_owned(),
        };
        format!("postgres://{auth}@127.0.0.1:{}/{}", proxy.port, self.name)
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        // A thread with its own runtime: this may run inside (or after) the test's runtime.
        let (server, name) = (self.server.clone(), self.name.clone());
        let dropped = std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            runtime.block_on(async move {
                if let Ok((client, connection)) =
                    tokio_postgres::connect(&server, tokio_postgres::NoTls).await
                {
                    tokio::spawn(connection);
                    let _ = tokio::time::timeout(
                        Duration::from_secs(20),
                        client
                            .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")),
                    )
                    .await;
                }
            });
        });
        let _ = dropped.join();
    }
}

/// Where the proxy forwards to: the test server's unix socket or TCP address.
#[derive(Clone)]
enum Upstream {
    Unix(std::path::PathBuf),
    Tcp(String),
}

impl Upstream {
    fn of(url: &str) -> Upstream {
        let config = tokio_postgres::Config::from_str(url).expect("test URL");
        let port = config.get_ports().first().copied().unwrap_or(5432);
        // A unix socket first: that is where scripts/test-services.sh listens.
        let hosts = config.get_hosts();
        let unix = hosts.iter().find_map(|h| match h {
            Host::Unix(dir) => Some(dir.join(format!(".s.PGSQL.{port}"))),
            Host::Tcp(_) => None,
        });
        match (unix, hosts.first()) {
            (Some(socket), _) => Upstream::Unix(socket),
            (None, Some(Host::Tcp(host))) => Upstream::Tcp(format!("{host}:{port}")),
            _ => Upstream::Tcp(format!("127.0.0.1:{port}")),
        }
    }
}

/// A TCP proxy on 127.0.0.1 in front of the test server. [`Proxy::cut`] closes every connection
/// through it and refuses new ones (Postgres unreachable, as if it were down);
/// [`Proxy::restore`] lets them through again.
pub struct Proxy {
    pub port: u16,
    open: Arc<AtomicBool>,
    cut_tx: watch::Sender<u64>,
    accept: tokio::task::JoinHandle<()>,
}

impl Proxy {
    pub async fn start(server: &str) -> Proxy {
        let upstream = Upstream::of(server);
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let port = listener.local_addr().expect("proxy address").port();
        let open = Arc::new(AtomicBool::new(true));
        let (cut_tx, cut_rx) = watch::channel(0u64);
        let accept_open = Arc::clone(&open);
        let accept = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                if !accept_open.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let upstream = upstream.clone();
                let mut cut = cut_rx.clone();
                cut.mark_unchanged();
                tokio::spawn(async move {
                    let piped = async {
                        match upstream {
                            Upstream::Unix(path) => {
                                if let Ok(server) = UnixStream::connect(path).await {
                                    pipe(client, server).await;
                                }
                            }
                            Upstream::Tcp(addr) => {
                                if let Ok(server) = TcpStream::connect(addr).await {
                                    pipe(client, server).await;
                                }
                            }
                        }
                    };
                    tokio::select! {
                        () = piped => {}
                        _ = cut.changed() => {}
                    }
                });
            }
        });
        Proxy {
            port,
            open,
            cut_tx,
            accept,
        }
    }

    /// Closes every connection through the proxy and refuses new ones.
    pub fn cut(&self) {
        self.open.store(false, Ordering::SeqCst);
        self.cut_tx.send_modify(|n| *n += 1);
    }

    pub fn restore(&self) {
        self.open.store(true, Ordering::SeqCst);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.cut();
        self.accept.abort();
    }
}

async fn pipe<S>(client: TcpStream, server: S)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = tokio::io::split(server);
    let up = tokio::io::copy(&mut client_read, &mut server_write);
    let down = tokio::io::copy(&mut server_read, &mut client_write);
    tokio::select! {
        _ = up => {}
        _ = down => {}
    }
}
