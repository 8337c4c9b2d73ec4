-- Issue 30, what the fourth hostile review found (notes: review-sql-r4), each attacked
-- by a member with plain SQL first (tests/team/team_review_r4.rs).
--
-- F1. A signer records a review submission's later outcomes. 0016 moved the signer to
--     UPDATE on the columns the desk writes, and 0018 (another branch) then added the
--     column `evidence`, which the desk's update sets too: every second write of a
--     submission on a team was refused. The guard test now reads the desk's own UPDATE
--     statements and checks the signer holds every column they set.
GRANT UPDATE (evidence) ON paydesk.review_submissions TO paydesk_signer;
