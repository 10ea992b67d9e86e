#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
# Count the leaf results of a nested KTAP stream: prints "passed failed skipped".
# A result line that closes subtests is counted only when it adds news: a
# failing parent whose subtests all passed (the program crashed or timed
# out after them) counts as one failure.

function count(line,   skipped, failed) {
	skipped = line ~ /# SKIP/
	failed = line ~ /^ *not ok /
	if (skipped) s++
	else if (failed) f++
	else p++
}

/^ *(not )?ok [0-9]+/ {
	match($0, /^ */)
	indent = RLENGTH
	# subtest results seen at deeper levels since the last result at this level
	if (subs[indent] > 0) {
		if ($0 ~ /^ *not ok / && subfail[indent] == 0) f++
	} else {
		count($0)
	}
	subs[indent] = 0; subfail[indent] = 0
	# tell the enclosing level it has subtests
	for (i = 0; i < indent; i += 4) {
		subs[i]++
		if ($0 ~ /^ *not ok / && $0 !~ /# SKIP/) subfail[i]++
	}
}

END { printf "%d %d %d\n", p, f, s }
