//! Learn Marseillais (issue 31): interactive lessons for a beginner, each a few positions with a
//! goal for one turn, checked by the rules core, and each verdict with its reason. The pure
//! rules (the lessons, the goals, the judge) stand apart from the routes (store I/O for the
//! progress of accounts; anonymous players keep theirs in the browser).
//!
//! | concept | module |
//! |---|---|
//! | a lesson, a step, their ids | [`lesson`] |
//! | the lessons as data | [`lessons`] |
//! | a goal and how a turn is checked against it | [`goal`] |
//! | why a verdict: the reasons and their wire names | [`reason`] |
//! | the verdict on the sub-moves played in a step | [`judge`] |
//! | what the routes answer | [`view`] |
//! | the refusals | [`error`] |
//! | the routes, and the progress of accounts | [`routes`] |

pub mod error;
pub mod goal;
pub mod judge;
pub mod lesson;
pub mod lessons;
pub mod reason;
pub mod routes;
pub mod view;
