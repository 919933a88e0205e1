#!/bin/sh
# tests/tools/isolated.sh CMD [ARG...] — runs CMD with a home (and an
# XDG_RUNTIME_DIR) of its own. The Makefile's test targets (integration,
# demo, bench, stub-check, install-check) run through it, so that they
# never read or write the caller's kinbox state: the grants in ~/.config/kinbox, the
# denial journal in ~/.local/state/kinbox (which `kinpolicy pending`
# lists), the session store in $XDG_RUNTIME_DIR/kinbox. A caller's global
# config cannot change what the tests see either.
#
# HOME and XDG_RUNTIME_DIR (0700) are fresh and empty, under /var/tmp (not
# /tmp: the sandbox's /tmp is private, so a HOME there would vanish inside
# it), and removed afterwards. XDG_CONFIG_HOME, XDG_STATE_HOME,
# XDG_CACHE_HOME and XDG_DATA_HOME are unset, so they are that HOME's (and
# follow a test that moves HOME, as for a user who never set them).
# KINBOX_SESSION and KINBOX_JSON_FD are unset: they name the caller's
# session and descriptor. KB_REAL_HOME says where the caller's home is,
# for a test that needs a toolchain installed there (rustup's).
#
# KB_ISOLATED_DIR=DIR: use DIR (created when missing) and keep it, so that
# the caller can look at what the run left there (make state-check).
# Exit status: CMD's.
set -u

if [ $# -eq 0 ]; then
	echo "usage: tests/tools/isolated.sh CMD [ARG...]" >&2
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
mkdir -p "$dir/home" "$dir/run" || exit 1
chmod 700 "$dir/home" "$dir/run" || exit 1
KB_REAL_HOME=${KB_REAL_HOME:-${HOME:-}}
HOME=$dir/home
XDG_RUNTIME_DIR=$dir/run
export KB_REAL_HOME HOME XDG_RUNTIME_DIR
unset XDG_CONFIG_HOME XDG_STATE_HOME XDG_CACHE_HOME XDG_DATA_HOME \
	KINBOX_SESSION KINBOX_JSON_FD || true
"$@"
