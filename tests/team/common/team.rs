//! A team's database in the core's team tests: its name, the members' password, the
//! CLABE their payouts go to, a member's connection settings and their connection.

use paydesk_store_pg::PgConfig;
use paydesk_team::Team;
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
        cert_file: String::new(),
        key_file: String::new(),
    }
}

/// Member `user`'s connection to the team.
pub fn member(pg: &TestPg, user: &str) -> Team {
    Team::connect(&cfg(pg, user), PASSWORD).unwrap()
}

/// A team's database set up by its owner (never a superuser): admin alice, then
/// `members` added by her, and one rule: MXN payouts above `above` need one approval.
pub fn team_db_of(
    opts: paydesk_testpg::Options,
    members: &[(&str, paydesk_team::TeamRole)],
    above: &str,
) -> TestPg {
    use paydesk_store_pg::{PgLink, init_team};
    use paydesk_team::{RuleInput, TeamRole};
    let pg = TestPg::start_with(opts).unwrap();
    pg.create_database(DB).unwrap();
    let owner = PgLink::connect(&cfg(&pg, pg.owner()), pg.owner_password()).unwrap();
    init_team(&owner, super::MER as i64).unwrap();
    Team::on(std::sync::Arc::new(owner))
        .unwrap()
        .add_member("alice", TeamRole::Admin, PASSWORD)
        .unwrap();
    let admin = member(&pg, "alice");
    for (name, role) in members {
        admin.add_member(name, *role, PASSWORD).unwrap();
    }
    admin
        .set_rule(&RuleInput {
            operation: "payout".into(),
            currency: "MXN".into(),
            above: above.into(),
            approvals: 1,
        })
        .unwrap();
    pg
}
