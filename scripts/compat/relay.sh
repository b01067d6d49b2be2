#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# <wrapper/relay.h>: the prototype of relay's subbuf_start callback.
#   scripts/compat/relay.sh SRCTREE
# Prints the -D flags; -DSLABTRACE_MISSING_SUBBUF_START if the callbacks
# have no subbuf_start.
h=${1:?usage: relay.sh SRCTREE}/include/linux/relay.h
# The member's declaration, from its name to the semicolon.
decl=$(sed -n '/(\*subbuf_start)/,/;/p' "$h" 2> /dev/null)
if [ -z "$decl" ]; then
	printf ' %s' -DSLABTRACE_MISSING_SUBBUF_START
elif ! echo "$decl" | grep -q prev_padding; then
	# between 6.12 and 7.2: no prev_padding argument
	printf ' %s' -DSLABTRACE_RELAY_SUBBUF_START_NO_PADDING
fi
exit 0
