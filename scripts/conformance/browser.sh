#!/usr/bin/env bash
# A $BROWSER without a person for the auth scenarios: GETs the
# authorization URL and follows its redirects to dispatch's loopback
# callback, as a browser whose user clicks "allow" would.
set -euo pipefail
exec curl -sS -L --max-redirs 10 --max-time 30 -o /dev/null "$1"
