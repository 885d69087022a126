#!/usr/bin/env bash
# Runs a long build step (a `swift build`), passing its output through line by line, and says
# it is still at work after every 10 seconds of silence: a release build of the engine compiles
# one large module for minutes without a line of its own, which looks like a hang.
#   heartbeat.sh LABEL COMMAND [ARGUMENTS...]
# Exits with the command's code.
set -uo pipefail
label=$1
shift
start=$SECONDS
echo "$label: started (this takes a few minutes on a fresh clone; a line at least every 10 s)"
exec 3< <("$@" 2>&1; echo "__heartbeat_exit $?")
while true; do
  if IFS= read -r -t 10 line <&3; then
    case $line in
      "__heartbeat_exit "*)
        code=${line#__heartbeat_exit }
        echo "$label: finished in $((SECONDS - start)) s (exit $code)"
        exit "$code" ;;
    esac
    case $line in
      *"the use of \`mktemp' is dangerous"*)
        # The static Swift Foundation the tool links holds a function that calls mktemp; the tool
        # never calls it. Said once, plainly, instead of the linker's alarming line.
        if [ -z "${mktemp_noted:-}" ]; then
          echo "$label: note: the linker warns that Swift's Foundation library (linked into the tool) uses mktemp; the tool never calls that function: harmless"
          mktemp_noted=1
        fi
        continue ;;
    esac
    printf '%s\n' "$line"
  elif [ $? -gt 128 ]; then
    # A timeout; a partial line read so far is printed with the next one.
    echo "$label: still working, $((SECONDS - start)) s so far"
  else
    exit 1
  fi
done
