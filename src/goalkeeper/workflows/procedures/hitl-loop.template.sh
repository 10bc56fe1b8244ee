#!/bin/sh
# Human-in-the-loop repro loop -- template.
#
# For bugs that only a human can trigger (a real device, a vendor dashboard,
# a browser session). Each iteration: prepare the state automatically, tell
# the human exactly what to do, ask what they observed, log it, and decide.
#
# Adapt: set BUG, fill in prepare(), instructions() and optionally capture().
#
# Environment:
#   HITL_STOP_ON   red | green | either   stop at the first iteration with this
#                  result (default: red -- "reproduce the bug")
#   HITL_MAX       maximum iterations (default: 5)
#   HITL_LOG       log file (default: ./hitl-loop.log)
#
# Result line and exit code (usable as the loop command of a diagnosis):
#   RESULT: red    exit 1   the bug was observed (loop is red)
#   RESULT: green  exit 0   the expected behaviour was observed (loop is green)
#   RESULT: none   exit 2   stop condition not reached, or the human quit

set -eu

BUG="<one-line symptom, e.g. 'export button does nothing on the tablet app'>"
STOP_ON="${HITL_STOP_ON:-red}"
MAX="${HITL_MAX:-5}"
LOG_FILE="${HITL_LOG:-./hitl-loop.log}"

prepare() {
    # Automated setup before every iteration: build, deploy, reset test data.
    # Keep it deterministic; the human should start from the same state each time.
    :
}

instructions() {
    cat <<'STEPS'
1. Open the app on the test tablet and log in as the test user.
2. Open any report and press "Export".
3. Watch the screen for five seconds.
Bug (red): nothing happens. Expected (green): a "Saved" message appears.
STEPS
}

capture() {
    # Optional automated evidence after the human acts (device logs, server logs).
    # Print one short line; it goes into the log next to the human's observation.
    :
}

say() { printf '%s\n' "$*"; }

log() {
    printf '%s\titer=%s\tresult=%s\tnote=%s\tcaptured=%s\n' \
        "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$1" "$2" "$3" "$4" >>"$LOG_FILE"
}

read_line() {
    # read_line: one line from the human into $line; treat end of input as quit
    printf '%s' "> "
    if ! IFS= read -r line; then
        line="q"
    fi
}

finish() {
    say "RESULT: $1"
    case $1 in
        red) exit 1 ;;
        green) exit 0 ;;
        *) exit 2 ;;
    esac
}

case $STOP_ON in
    red | green | either) ;;
    *) say "HITL_STOP_ON must be red, green or either" >&2; exit 64 ;;
esac

say "Repro loop for: $BUG"
say "Stops when the result is: $STOP_ON (at most $MAX iterations). Log: $LOG_FILE"

i=0
while [ "$i" -lt "$MAX" ]; do
    i=$((i + 1))
    say ""
    say "== Iteration $i/$MAX =="
    prepare
    instructions
    say ""
    say "Do the steps above, then answer:"
    say "  r = bug seen (red)   g = expected behaviour (green)   s = unsure, redo   q = quit"
    read_line
    case $line in
        r | red) result="red" ;;
        g | green) result="green" ;;
        s | skip) result="unsure" ;;
        q | quit)
            log "$i" "quit" "" ""
            finish "none"
            ;;
        *)
            say "Unrecognised answer; counting this iteration as unsure."
            result="unsure"
            ;;
    esac
    say "What exactly did you see? (one line, Enter to leave empty)"
    read_line
    note=$line
    [ "$note" = "q" ] && note=""
    captured=$(capture || :)
    log "$i" "$result" "$note" "$captured"
    say "Logged: $result"

    if [ "$result" = "unsure" ]; then
        continue
    fi
    if [ "$STOP_ON" = "either" ] || [ "$STOP_ON" = "$result" ]; then
        finish "$result"
    fi
done

say "Stop condition ($STOP_ON) not reached in $MAX iterations; see $LOG_FILE."
finish "none"
