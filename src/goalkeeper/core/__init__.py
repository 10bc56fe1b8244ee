"""The pure core: what goalkeeper knows, with no I/O. One room per concern, named after the rule
it holds, so the place for a seed rule is one guess away:

- ``values`` — events and actions, the vocabulary between hosts, the engine and the guards.
- ``tools`` — the agent's tools as goalkeeper judges them (which write, which run a shell).
- ``cadence`` — seed 000: the plan (``plan``), its anchors, phase markers, closing gates and the
  commitments only the user may change.
- ``goals`` — seeds 001 and 004 §4: GOAL.md, goal detection, verify inference, the promise the
  user approved and the approval tool.
- ``todos`` — seed 002: the todo tree and completion evidence.
- ``workflows`` — seed 003: the procedure catalog, the resolver, the workflow state machine and
  its tools.
- ``proof`` — what makes a proof unforgeable: test runners and their summaries, whether a command
  is a verification, protected tests.
- ``shell`` — reading command lines without running them: words, approved argv, file writes.
- ``text`` — text primitives every reader shares: inline code spans, safe JSON text, language.
- ``messages`` — every word goalkeeper says, in English and Chinese (one module per concern).
"""
