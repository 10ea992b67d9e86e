#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
# Count the leaf results of a nested KTAP stream: prints "passed failed skipped".
# A result line that closes subtests is counted only when it adds news: a
# failing parent whose subtests all passed (the program crashed or timed
# out after them) counts as one failure.  A plan ("1..N") that the results
# at its level do not meet (a program that stopped early, or a plan counted
# by hand) is one more failure, named on stderr.

function count(line,   skipped, failed) {
	skipped = line ~ /# SKIP/
	failed = line ~ /^ *not ok /
	if (skipped) s++
	else if (failed) f++
	else p++
}

# close_plan LEVEL: check the plan of LEVEL (an indentation) against its results.
function close_plan(level) {
	if (level in plan && plan[level] != got[level]) {
		f++
		printf "ktap-count: plan 1..%d at indentation %d, %d results (line %d)\n",
			plan[level], level, got[level], NR > "/dev/stderr"
	}
	delete plan[level]
	got[level] = 0
}

/^ *KTAP version/ {
	match($0, /^ */)
	close_plan(RLENGTH)
}

/^ *1\.\.[0-9]+/ {
	match($0, /^ */)
	indent = RLENGTH
	n = $0
	sub(/^ *1\.\./, "", n)
	plan[indent] = n + 0
	got[indent] = 0
}

/^ *(not )?ok [0-9]+/ {
	match($0, /^ */)
	indent = RLENGTH
	close_plan(indent + 4)
	got[indent]++
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

END {
	for (l in plan)
		close_plan(l)
	printf "%d %d %d\n", p, f, s
}
