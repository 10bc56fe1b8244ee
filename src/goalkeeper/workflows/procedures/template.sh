#!/bin/sh
# WIZARD_TITLE -- interactive, resumable walkthrough of steps only a human can do.
#
# Generated from goalkeeper's wizard template. To adapt it:
#   1. Set WIZARD_NAME and WIZARD_TITLE.
#   2. List the step ids, in order, in STEPS.
#   3. For every id write title_<id> and body_<id>; optionally verify_<id>
#      (a read-only check that returns 0 when the step is really done).
#
# Usage: sh wizard.sh           run or resume
#        sh wizard.sh --status  show progress
#        sh wizard.sh --reset   forget progress and start over
#        sh wizard.sh --retry-skipped   forget skipped steps only
# At each step: press Enter when done, type "skip" to skip, "quit" to stop.
# Progress is kept in $PROGRESS_FILE, so re-running resumes where you stopped.

set -eu

WIZARD_NAME="example-setup"
WIZARD_TITLE="Example setup"
PROGRESS_FILE="${WIZARD_PROGRESS_FILE:-./.${WIZARD_NAME}.progress}"
STEPS="create_account store_secret confirm_dns"

# --- steps ----------------------------------------------------------------
# Functions below are called indirectly by name.

title_create_account() { printf '%s\n' "Create the service account"; }
body_create_account() {
    cat <<'STEP'
1. Open the provider console and go to Settings > Service accounts.
2. Create an account named "deploy-bot" with the "Deployer" role.
3. Do not download a key yet.
STEP
}

title_store_secret() { printf '%s\n' "Store the API key in the secret manager"; }
body_store_secret() {
    cat <<'STEP'
1. In the console, create a key for "deploy-bot".
2. Store it as DEPLOY_API_KEY in the team secret manager.
   Do not paste it here; this wizard never reads secret values.
STEP
}

title_confirm_dns() { printf '%s\n' "Point the DNS record at the new host"; }
body_confirm_dns() {
    cat <<'STEP'
1. In the DNS dashboard, set app.example.invalid CNAME -> new-host.example.invalid.
2. Wait for the change to be published.
STEP
}
verify_confirm_dns() {
    # Read-only check; return non-zero if the step is not done yet.
    command -v nslookup >/dev/null 2>&1 || return 0
    nslookup app.example.invalid >/dev/null 2>&1
}

# --- engine (normally unchanged) ------------------------------------------

say() { printf '%s\n' "$*"; }

recorded() {
    # recorded <step>: true if the step is marked done or skipped
    [ -f "$PROGRESS_FILE" ] || return 1
    grep -q -x -e "done $1" -e "skipped $1" "$PROGRESS_FILE"
}

record() {
    # record <done|skipped> <step>
    printf '%s %s\n' "$1" "$2" >>"$PROGRESS_FILE"
}

has_function() {
    command -v "$1" >/dev/null 2>&1
}

show_status() {
    say "$WIZARD_TITLE -- progress ($PROGRESS_FILE)"
    for step in $STEPS; do
        state="todo"
        if [ -f "$PROGRESS_FILE" ]; then
            if grep -q -x -e "done $step" "$PROGRESS_FILE"; then
                state="done"
            elif grep -q -x -e "skipped $step" "$PROGRESS_FILE"; then
                state="skipped"
            fi
        fi
        printf '  %-8s %s\n' "$state" "$("title_$step")"
    done
}

retry_skipped() {
    [ -f "$PROGRESS_FILE" ] || { say "No progress recorded."; return 0; }
    tmp="$PROGRESS_FILE.tmp"
    grep -v -e '^skipped ' "$PROGRESS_FILE" >"$tmp" || :
    mv "$tmp" "$PROGRESS_FILE"
    say "Skipped steps will be offered again."
}

ask() {
    # ask: read one line from the terminal into $answer; quit on end of input
    printf '%s' "> "
    if ! IFS= read -r answer; then
        say ""
        say "Input closed; progress saved. Re-run to continue."
        exit 2
    fi
}

run_step() {
    step=$1
    number=$2
    total=$3
    say ""
    say "== Step $number/$total: $("title_$step") =="
    "body_$step"
    while :; do
        say ""
        say "Press Enter when done, type 'skip' to skip, 'quit' to stop."
        ask
        case $answer in
            "")
                if has_function "verify_$step" && ! "verify_$step"; then
                    say "The check for this step did not pass yet. Finish it, then press Enter."
                    continue
                fi
                record "done" "$step"
                say "Recorded: done."
                return 0
                ;;
            skip)
                record "skipped" "$step"
                say "Recorded: skipped."
                return 0
                ;;
            quit | q)
                say "Stopped; progress saved. Re-run to continue."
                exit 2
                ;;
            *)
                say "Unrecognised answer: $answer"
                ;;
        esac
    done
}

main() {
    case ${1:-} in
        --status) show_status; exit 0 ;;
        --reset) rm -f "$PROGRESS_FILE"; say "Progress reset."; exit 0 ;;
        --retry-skipped) retry_skipped; exit 0 ;;
        "") ;;
        *) say "Usage: $0 [--status|--reset|--retry-skipped]" >&2; exit 64 ;;
    esac

    total=0
    for step in $STEPS; do total=$((total + 1)); done

    say "$WIZARD_TITLE"
    number=0
    for step in $STEPS; do
        number=$((number + 1))
        if recorded "$step"; then
            say "Step $number/$total already recorded: $("title_$step")"
            continue
        fi
        run_step "$step" "$number" "$total"
    done

    say ""
    show_status
    if grep -q -e '^skipped ' "$PROGRESS_FILE" 2>/dev/null; then
        say "Finished with skipped steps; run with --retry-skipped, then again, to do them."
        exit 1
    fi
    say "All steps done."
}

main "$@"
