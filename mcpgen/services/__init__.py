"""Stage 10, services: one service per command: the stages run in order.

`pipeline` builds, writes and validates (build, check, validate, watch); `spec_loading` reads
and checks a spec (the policy on warnings), once per build with `spec_file`; `package_directories` decides where the
package goes and whether it is fresh; `handler_changes` what a rebuild asks of the user's
Handlers; `project_starter` init's and stub's files; `spec_lint` and `spec_budget` lint;
`spec_diff` diff.
"""
