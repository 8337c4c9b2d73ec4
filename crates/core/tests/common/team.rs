//! A team's database in the core's team tests: its name, the members' password, the
//! CLABE their payouts go to, a member's connection settings and their connection.

use paydesk_core::store::pg::PgConfig;
use paydesk_core::team::Team;
use paydesk_testpg::TestPg;

pub const DB: &str = "team";
pub const PASSWORD: &str = "correct-horse-battery";
pub const CLABE: &str = "002010077777777771";

/// Where member `user` connects (the test server, the team's database).
pub fn cfg(pg: &TestPg, user: &str) -> PgConfig {
    PgConfig {
        host: pg.host().into(),
        port: pg.port(),
        database: DB.into(),
        user: user.into(),
        ca_file: String::new(),
    }
}

/// Member `user`'s connection to the team.
pub fn member(pg: &TestPg, user: &str) -> Team {
    Team::connect(&cfg(pg, user), PASSWORD).unwrap()
}
