// A game's WebSocket that reconnects by itself with exponential backoff,
// resuming from the last version seen (docs/protocol.md 3.2), and says when
// it is online or offline. It also measures its own round trip with an
// app-level ping every few seconds and sends it as the `lag` of each `move`
// (docs/protocol.md section 4): the server only ever lowers its own measure
// to it, never raises it.

/** How often the socket measures its round trip (ms). */
const LAG_PING_MS = 5000;

export class GameSocket {
  /**
   * @param {string} id game id
   * @param {() => {token: string|null, v: number|null}} resume what to send on (re)connect
   * @param {{onMessage: (msg: object) => void, onStatus: (online: boolean) => void, onOpen?: () => void}} handlers
   */
  constructor(id, resume, handlers) {
    this.id = id;
    this.resume = resume;
    this.handlers = handlers;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.closed = false;
    this.online = false;
    this.suspended = false;
    this.rtt = null;
    this.pingSent = null;
    this.pinger = null;
    // Leaving the page must close the socket even when the browser keeps the
    // page in its back/forward cache; coming back reconnects.
    window.addEventListener('pagehide', () => this.suspend());
    window.addEventListener('pageshow', (e) => { if (e.persisted) this.wake(); });
    this.connect();
  }

  suspend() {
    this.suspended = true;
    clearTimeout(this.timer);
    const ws = this.ws;
    this.ws = null;
    if (ws) { ws.onclose = null; ws.close(1000, 'page hidden'); }
  }

  wake() {
    if (!this.suspended || this.closed) return;
    this.suspended = false;
    this.attempt = 0;
    this.connect();
  }

  url() {
    const { token, v } = this.resume();
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const q = new URLSearchParams();
    if (token) q.set('token', token);
    if (v !== null && v !== undefined) q.set('v', String(v));
    const qs = q.toString();
    return `${proto}//${location.host}/ws/game/${encodeURIComponent(this.id)}${qs ? `?${qs}` : ''}`;
  }

  connect() {
    clearTimeout(this.timer);
    if (this.closed || this.suspended) return;
    let ws;
    try { ws = new WebSocket(this.url()); } catch (_) { this.retry(); return; }
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.setOnline(true);
      this.measure();
      if (this.handlers.onOpen) this.handlers.onOpen();
    };
    ws.onmessage = (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch (_) { return; }
      if (msg && msg.t === 'pong') {
        if (this.pingSent !== null) this.rtt = Math.round(performance.now() - this.pingSent);
        this.pingSent = null;
        return;
      }
      this.handlers.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.setOnline(false);
      this.retry();
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  /** Pings now and every LAG_PING_MS while this socket is the open one. */
  measure() {
    clearInterval(this.pinger);
    const ws = this.ws;
    const ping = () => {
      if (this.ws !== ws || ws.readyState !== WebSocket.OPEN) { clearInterval(this.pinger); return; }
      this.pingSent = performance.now();
      ws.send('{"t":"ping"}');
    };
    ping();
    this.pinger = setInterval(ping, LAG_PING_MS);
  }

  retry() {
    if (this.closed || this.suspended) return;
    const delay = Math.min(10000, 500 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Drops the connection and opens a new one now (e.g. after a version gap). */
  reconnect() {
    const ws = this.ws;
    this.ws = null;
    if (ws) { ws.onclose = null; ws.close(); }
    this.setOnline(false);
    this.attempt = 0;
    this.connect();
  }

  setOnline(online) {
    if (this.online === online) return;
    this.online = online;
    this.handlers.onStatus(online);
  }

  /** Sends `{t, d}`; false when offline (the caller may retry after reconnecting). */
  send(t, d) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    if (t === 'move' && d && this.rtt !== null) d = { ...d, lag: this.rtt };
    this.ws.send(JSON.stringify(d === undefined ? { t } : { t, d }));
    return true;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) { this.ws.onclose = null; this.ws.close(); }
  }
}
