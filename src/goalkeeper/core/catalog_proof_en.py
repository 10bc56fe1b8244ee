"""English messages of proof that cannot be forged: protected tests, checks that really ran,
todo gates as duties, honest exits and what the user hears at a stop."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # -- protected tests (goal verify) --------------------------------------------------------
    "proof.tests.modified": "- {path}: changed",
    "proof.tests.deleted": "- {path}: deleted",
    "proof.tests.added": "- {path}: added (test configuration)",
    "proof.tests.more": "- … and {n} more",
    "proof.tests.held": (
        "The verification passes, but only with your changes to the tests. goalkeeper ran it again "
        "with the tests as they were when the goal was set, over your code, and there it fails:\n"
        "{changed}\n\nThe original tests say, last lines:\n{tail}\n\nFix the code so the original "
        "tests pass and put the tests back. If a test itself was wrong, say so in {path}'s Progress "
        "Log and ask the user to accept the change: only they can (`goalkeeper goal accept-tests`)."
    ),
    "proof.tests.held_user": (
        "goalkeeper: the goal's verification passes only with the agent's changes to the tests, so "
        "it is not proven:\n{changed}\nAgainst the original tests it fails. Review the change; to "
        "accept it, run `goalkeeper goal accept-tests` in your own terminal."
    ),
    "proof.tests.unchecked_user": (
        "goalkeeper: the goal's tests changed since it was set, and goalkeeper could not run the "
        "verification against the original ones ({problem}), so it is not proven:\n{changed}\n"
        "To accept the changed tests, run `goalkeeper goal accept-tests` in your own terminal."
    ),
    # -- checks that ran (cadence) ------------------------------------------------------------
    # -- todo gates ---------------------------------------------------------------------------
    # -- commitments --------------------------------------------------------------------------
    # -- honest exits and the truth at a stop -------------------------------------------------
}
