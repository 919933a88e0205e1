#!/bin/sh
# tests/isolated.sh CMD [ARG...] — runs CMD with a home and XDG directories
# of its own. The Makefile's test targets (integration, demo, bench,
# stub-check, install-check) run through it, so that they never read or
# write the caller's kinbox state: the grants in ~/.config/kinbox, the
# denial journal in ~/.local/state/kinbox (which `kinpolicy pending`
# lists), the session store in $XDG_RUNTIME_DIR/kinbox. A caller's global
# config cannot change what the tests see either.
#
# The directories are fresh and empty, under /var/tmp (not /tmp: the
# sandbox's /tmp is private, so a HOME there would vanish inside it), and
# removed afterwards. KINBOX_SESSION and KINBOX_JSON_FD are unset: they name
# the caller's session and descriptor.
#
# KB_ISOLATED_DIR=DIR: use DIR (created when missing) and keep it, so that
# the caller can look at what the run left there (make state-check).
# Exit status: CMD's.
set -u

if [ $# -eq 0 ]; then
	echo "usage: tests/isolated.sh CMD [ARG...]" >&2
	exit 2
fi
if [ -n "${KB_ISOLATED_DIR:-}" ]; then
	dir=$KB_ISOLATED_DIR
	mkdir -p "$dir" || exit 1
else
	dir=$(mktemp -d /var/tmp/kinbox-home.XXXXXX) || exit 1
	trap 'chmod -R u+rwX "$dir" 2>/dev/null; rm -rf "$dir"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
fi
mkdir -p "$dir/home" "$dir/config" "$dir/state" "$dir/cache" \
	"$dir/data" "$dir/run" || exit 1
chmod 700 "$dir/home" "$dir/run" || exit 1
HOME=$dir/home
XDG_CONFIG_HOME=$dir/config
XDG_STATE_HOME=$dir/state
XDG_CACHE_HOME=$dir/cache
XDG_DATA_HOME=$dir/data
XDG_RUNTIME_DIR=$dir/run
export HOME XDG_CONFIG_HOME XDG_STATE_HOME XDG_CACHE_HOME XDG_DATA_HOME \
	XDG_RUNTIME_DIR
unset KINBOX_SESSION KINBOX_JSON_FD || true
"$@"
