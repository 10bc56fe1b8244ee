"""English message catalog: the fresh reviewer asked once (seed 002's verification duty).

Same keys and fields as ``messages.review_zh`` (golden-tested). Literal braces are ``{{`` ``}}``.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "review.goal": (
        "goalkeeper: the goal is proven ({commands} passed) and stays proven. One last step, "
        "asked once: have a fresh reviewer check the change against the goal before you stop. "
        "{how}\n"
        "Goal: {objective}\n"
        "Acceptance criteria:\n{criteria}\n"
        "The reviewer reads the change (`git diff`) and answers: does it do what the goal asks "
        "for every input, not only the tested ones, and are the tests, checks and test data as "
        "they were? Fix what it finds and run {commands} again; if it finds nothing, say so in "
        "one line and stop."
    ),
    "review.todos": (
        "goalkeeper: test-gated task {ids} completed. Completed ≠ verified; asked once: have a "
        "fresh reviewer check that each change does what its task says and that the tests it "
        "ran really test it (read-only: the diff, the tests, the evidence claimed). {how} Fix "
        "any gap it finds; if it finds none, say so in one line and go on."
    ),
    "review.how.subagent": (
        "Hand it to a subagent (a fresh context, read-only): give it the goal as written here, "
        "not your own account of the work."
    ),
    "review.how.self": (
        "This host has no subagents: review it yourself with fresh eyes, reading the diff as if "
        "someone else had written it."
    ),
    "review.no_criteria": "- (none beyond the verify commands)",
}
