#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The benchmarks' report: docs/evaluation.md, with tables, and gnuplot PNGs
# (docs/img/), regenerated from the raw output that make bench
# (tests/harness/bench.sh) keeps in tests/bench-results/KERNEL-BOOT.txt, for
# every kernel whose raw output is kept (in tests/kernels.conf's order).  Each
# ratio's spread over rounds and boots and its verdict are also printed.
# An in-tree row (the twin, proof column in-tree) and its anchor, the row
# named KERNEL-base (the same source, config and compiler without the
# series, with the module), are joined into one table of three columns:
# the anchor (execve, or the comparison's A), the module and the in-tree
# execns, measured in one guest run per kernel.
#
# The page holds only what is computed from the raw output; the method and
# the discussion are written by hand in docs/bench-notes.md, which the page
# links to.
#
# Usage: bench-report.sh [KERNEL...]   write the page and the plots
#        bench-report.sh --check       make the page in a temporary file and
#                                      compare it with docs/evaluation.md
#                                      (diff -u; exit 1 on any difference);
#                                      no plot drawn, nothing written (lint)
# A KERNEL named must have raw output; the report covers every kernel that
# has, named or not.

. "$(dirname "$0")/common.sh"
# The same bytes on every host: sorting and globbing in C's order.
export LC_ALL=C

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
for k in "$@"; do
	kernel_field "$k" 1 >/dev/null
done

DOCS=$TOP/docs
RAW=$TOP/tests/bench-results
IMG=$DOCS/img

# target NAME: the target for a ratio, or "-" for none.
target() {
	case $1 in
	*_raw) echo - ;;
	execns0 | execns_uts_ipc* | clone_uts_ipc*) echo 1.03 ;;
	module_loaded_* | module_after_tables_*) echo 1.01 ;;
	table_inside_*) echo 1.05 ;;
	tables_*_vs_1_*) echo 1.10 ;;
	mem_per_table_bytes) echo 2048 ;;
	*) echo - ;;
	esac
}

boots() { ls "$RAW/$1"-[0-9]*.txt 2>/dev/null | sort -V; }
for k in "$@"; do
	[ -n "$(boots "$k")" ] || die "no raw output for $k in $RAW (run make bench KERNEL=$k)"
done
# The report covers every kernel with raw output, those of this run or not.
mapfile -t kept < <(kernel_rows | awk '!/^#/ && NF && !seen[$1]++ { print $1 }' |
	while read -r k; do [ -z "$(boots "$k")" ] || echo "$k"; done)
[ ${#kept[@]} -gt 0 ] || die "no raw output in $RAW (run make bench)"
set -- "${kept[@]}"
# runs[KERNEL]: its raw files, boot 1 first, listed once (the tables read
# them hundreds of times); first KERNEL: boot 1's.
declare -A runs
for k in "$@"; do
	runs[$k]=$(boots "$k")
done
first() { printf '%s\n' "${runs[$1]%%$'\n'*}"; }

# spread KERNEL: one line per ratio, "NAME TARGET BOOT1 BOOT2 MIN MAX N VERDICT":
# each boot's ratio (of its pooled samples), the lowest and highest of every
# round of every boot and of the boots' ratios, how many values that is, and
# the verdict.  The rule: met when every value is at or under the target,
# missed when every value is over it, "open" when they straddle it (the
# noise is larger than the distance to the target).
spread() {
	local k=$1 f b
	for f in ${runs[$k]}; do
		b=${f##*-}
		awk -v b="${b%.txt}" '$1 == "ratio" { print "boot", b, $2, $3 }
			$1 == "round" { print "round", b, $2, $4 }' "$f"
	done | while read -r what b name v; do
		printf "%s %s %s %s " "$what" "$b" "$name" "$v"
		target "$name"
	done | awk '
	{
		if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3; tgt[$3] = $5; lo[$3] = hi[$3] = $4 }
		if ($1 == "boot") bv[$3, $2] = $4
		if ($4 + 0 < lo[$3] + 0) lo[$3] = $4
		if ($4 + 0 > hi[$3] + 0) hi[$3] = $4
		cnt[$3]++
	}
	END {
		for (i = 1; i <= n; i++) {
			m = order[i]; t = tgt[m]
			v = t == "-" ? "-" : hi[m] + 0 <= t + 0 ? "met" : lo[m] + 0 > t + 0 ? "missed" : "open"
			printf "%s %s %s %s %s %s %d %s\n", m, t, (m SUBSEP 1) in bv ? bv[m, 1] : "-",
			       (m SUBSEP 2) in bv ? bv[m, 2] : "-", lo[m], hi[m], cnt[m], v
		}
	}'
}

# summary, plots: each ratio with its spread and verdict, printed; the
# PNGs in docs/img/ (gnuplot).
summary() {
	local k
	for k in "$@"; do
		echo "# $k: ratio target boot1 boot2 lowest highest values verdict"
		spread "$k" | grep -v '_raw ' | column -t
	done
}
plots() {
	local k dat op series
	# Plot 1, per kernel: exec latency by flag set, anchor against execns (boot 1).
	for k in "$@"; do
		dat=$(mktemp)
		awk '$1 == "result" {
			m[$2 "," $3] = $4 / 1e6
		}
		END {
			printf "\"0\" %f %f\n", m["execns0,execve"], m["execns0,execns(0)"]
			printf "\"UTS|IPC\" %f %f\n", m["execns_uts_ipc,unshare+execve"], m["execns_uts_ipc,execns"]
			printf "\"UTS|IPC|NS|NET\" %f %f\n", m["execns_uts_ipc_ns_net,unshare+execve"], m["execns_uts_ipc_ns_net,execns"]
			printf "\"UTS|IPC (fork)\" %f %f\n", m["clone_uts_ipc,clone+execve"], m["clone_uts_ipc,fork+execns"]
			printf "\"UTS|IPC|NS|NET (fork)\" %f %f\n", m["clone_uts_ipc_ns_net,clone+execve"], m["clone_uts_ipc_ns_net,fork+execns"]
		}' "$(first "$k")" >"$dat"
		gnuplot <<-GP
			set terminal pngcairo size 900,480 noenhanced
			set output "$IMG/flags-$k.png"
			set title "$k: exec latency by flag set (median, QEMU TCG, boot 1)"
			set ylabel "ms"
			set style data histograms
			set style histogram clustered gap 1
			set style fill solid 0.8 border -1
			set yrange [0:*]
			set key top left
			plot "$dat" using 2:xtic(1) title "anchor (execve / unshare+execve / clone+execve)", \
			     "" using 3 title "execns"
		GP
		rm -f "$dat"
	done

	# Plot 2: lookup latency against live tables, relative to one table: the
	# mean of the 1-table points before and after the sweep, as in the ratio.
	dat=$(mktemp -d)
	series=
	for k in "$@"; do
		for op in setuid getprio; do
			awk -v op="$op" '$1 == "tables" && $3 == op {
				if ($2 == "1" || $2 == "1end") { base += $7 / 2; next }
				x[++n] = $2; y[n] = $7
			}
			END { for (i = 1; i <= n; i++) printf "%d %f\n", x[i], y[i] / base }' \
				"$(first "$k")" >"$dat/$k-$op"
			series="$series${series:+, }\"$dat/$k-$op\" using 1:2 with linespoints title \"$k $op\""
		done
	done
	gnuplot <<-GP
		set terminal pngcairo size 900,480 noenhanced
		set output "$IMG/tables.png"
		set title "alloc_uid (setuid) and find_user (getpriority PRIO_USER) inside a table vs live tables"
		set xlabel "live uid tables"
		set ylabel "(op / getppid) at N tables over the same at 1 table"
		set logscale x
		set yrange [0.8:*]
		set key top left
		set grid
		plot $series, 1.1 with lines dashtype 2 title "target 1.1"
	GP
	rm -rf "$dat"
}

# table_head HEADER RULE KERNEL...: a Markdown table's first two lines:
# HEADER's and RULE's columns, then one column per kernel.
table_head() {
	local h=$1 r=$2 k
	shift 2
	printf '%s' "$h"
	for k in "$@"; do printf ' %s |' "$k"; done
	printf '\n%s' "$r"
	for k in "$@"; do printf -- '---|'; done
	echo
}

# ratio_cell KERNEL NAME: "boot1 / boot2 [lowest-highest] verdict".
ratio_cell() {
	awk -v n="$2" '$1 == n {
		v = $8 == "met" ? "**met**" : $8 == "missed" ? "**missed**" : $8 == "open" ? "*open*" : ""
		b = $4 == "-" ? $3 : $3 " / " $4
		r = $5 != $6 ? " [" $5-0 "-" $6-0 "]" : ""
		printf "%s%s %s", b, r, v; found = 1
	}
	END { if (!found) printf "-" }' "$tmp/$1.spread"
}

# per_boot KERNEL KIND NAME VARIANT: the fourth field of each boot's
# "KIND NAME VARIANT" lines, "b1 / b2".
per_boot() {
	# shellcheck disable=SC2086 # the raw files, a word each
	awk -v k="$2" -v n="$3" -v v="$4" '$1 == k && $2 == n && $3 == v { s = s (s == "" ? "" : " / ") $4 }
		END { if (s != "") print s }' ${runs[$1]}
}

# hook_cell KERNEL OP VARIANT: each boot's ns, "b1 / b2".
hook_cell() { per_boot "$1" hook "$2" "$3"; }

# med KERNEL NAME VARIANT: each boot's median of a result line, "b1 / b2".
med() { per_boot "$1" result "$2" "$3"; }

# ratio_only KERNEL NAME: "boot1 / boot2 [lowest-highest]", no verdict.
ratio_only() {
	awk -v n="$2" '$1 == n {
		b = $4 == "-" ? $3 : $3 " / " $4
		r = $5 != $6 ? " [" $5-0 "-" $6-0 "]" : ""
		printf "%s%s", b, r; found = 1
	}
	END { if (!found) printf "n/a" }' "$tmp/$1.spread"
}

# quot X Y: X/Y to four places (each a boot 1 median), or "-".
quot() { awk -v x="${1%% *}" -v y="${2%% *}" 'BEGIN { if (x > 0 && y > 0) printf "%.4f", x / y; else printf "-" }'; }
# diff_ X Y: X-Y (boot 1 medians), signed, or "-".
diff_() { awk -v x="${1%% *}" -v y="${2%% *}" 'BEGIN { if (x > 0 && y > 0) printf "%+d", x - y; else printf "-" }'; }

# trio_rows: the rows of the three-column table, "NAME RESULT A B": the
# ratio's name, the name its absolute medians are under (the *_raw ones
# for the loops, whose ratio is of getppid-normalised samples), the
# anchor variant and the measured one.
trio_rows() {
	cat <<-'ROWS'
		execns0 execns0 execve execns(0)
		execns_uts_ipc execns_uts_ipc unshare+execve execns
		execns_uts_ipc_ns_net execns_uts_ipc_ns_net unshare+execve execns
		clone_uts_ipc clone_uts_ipc clone+execve fork+execns
		clone_uts_ipc_ns_net clone_uts_ipc_ns_net clone+execve fork+execns
		table_make_drop table_make_drop execns(0) execns(NEWUSER)
	ROWS
	local op
	for op in setuid getprio fork exec; do
		echo "table_inside_$op table_inside_${op}_raw outside inside"
		echo "table_armed_outside_$op table_armed_outside_${op}_raw outside outside-armed"
	done
	for op in setuid getprio fork exec; do
		echo "module_loaded_$op module_loaded_${op}_raw unloaded loaded"
		echo "module_after_tables_$op module_after_tables_${op}_raw unloaded loaded-after-tables"
	done
}

# trio BASE TWIN: the three-column section for an in-tree row and its anchor.
trio() {
	local b=$1 t=$2 name res va vb ab at mb mt op
	echo "## The module against the in-tree twin ($b, $t)"
	echo
	echo "$b: $(sed -n '1s/^# kernel //p' "$(first "$b")")."
	echo "$t: $(sed -n '1s/^# kernel //p' "$(first "$t")")."
	echo
	echo "The same guest program on two kernels of one source, config and compiler:"
	echo "$t with upstream/series (execns(2) and uid tables of the kernel's own),"
	echo "$b without it and with the module.  Each kernel's run interleaves its"
	echo "anchor A (execve, unshare+execve, clone+execve, or the loop outside any"
	echo "table, or with the module unloaded) with the measured variant B, so"
	echo "**module** and **in-tree** are each B over A inside one run; the"
	echo "instruction counts (icount) are also comparable across the two kernels."
	echo "Each count is the median per exec or per operation (boot 1 / boot 2),"
	echo "each ratio the pooled one (boot 1 / boot 2) and [lowest-highest] over"
	echo "every round and boot.  \`$t ÷ $b\` is what the series costs a kernel"
	echo "without it (A against A); \`module − in-tree\` is B against B: what"
	echo "the prototype costs against the twin (boot 1's counts).  The rows of the"
	echo "module's own loading are n/a on $t, which has no module."
	echo
	echo "| row: A → B | A on $b | A on $t | $t ÷ $b | B on $b (module) | module B/A | B on $t (in-tree) | in-tree B/A | module − in-tree | module ÷ in-tree |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	trio_rows | while read -r name res va vb; do
		ab=$(med "$b" "$res" "$va") at=$(med "$t" "$res" "$va")
		mb=$(med "$b" "$res" "$vb") mt=$(med "$t" "$res" "$vb")
		[ -n "$ab$at" ] || continue
		printf '| `%s`: %s → %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
			"$name" "$va" "$vb" "${ab:-n/a}" "${at:-n/a}" "$(quot "$at" "$ab")" \
			"${mb:-n/a}" "$(ratio_only "$b" "$name")" "${mt:-n/a}" "$(ratio_only "$t" "$name")" \
			"$(diff_ "$mb" "$mt")" "$(quot "$mb" "$mt")"
	done
	echo
	echo "Per operation, instructions (boot 1's raw medians): what a task in a table"
	echo "pays over one in no table on each kernel (\`inside − outside\`: the hooks'"
	echo "redirection on $b, the table's own lookup on $t), what a task in no table"
	echo "pays while another table lives (\`armed − outside\`), and the module's"
	echo "count inside a table over the twin's."
	echo
	echo "| op | outside, $b | outside, $t | inside − outside, module | inside − outside, in-tree | armed − outside, module | armed − outside, in-tree | inside, module − in-tree |"
	echo "|---|---|---|---|---|---|---|---|"
	for op in setuid getprio fork exec; do
		res=table_inside_${op}_raw
		ab=$(med "$b" "$res" outside) at=$(med "$t" "$res" outside)
		mb=$(med "$b" "$res" inside) mt=$(med "$t" "$res" inside)
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$op" "${ab%% *}" "${at%% *}" \
			"$(diff_ "$mb" "$ab")" "$(diff_ "$mt" "$at")" \
			"$(diff_ "$(med "$b" "table_armed_outside_${op}_raw" outside-armed)" "$ab")" \
			"$(diff_ "$(med "$t" "table_armed_outside_${op}_raw" outside-armed)" "$at")" \
			"$(diff_ "$mb" "$mt")"
	done
	echo
}

if [ "$check" = 0 ]; then
	mkdir -p "$IMG"
	if ! command -v gnuplot >/dev/null; then
		note "installing gnuplot (Debian's gnuplot-nox) for the plots"
		logged gnuplot-install.log apt-get install -y --no-install-recommends gnuplot-nox ||
			die "installing gnuplot-nox failed (log: $LOGS/gnuplot-install.log)"
	fi
	summary "$@"
	plots "$@"
fi

# The page: tables computed from the raw output, and links to the
# hand-written notes, none of whose text is copied.
out=$DOCS/evaluation.md
tmp=$(mktemp -d)
for k in "$@"; do
	spread "$k" >"$tmp/$k.spread"
done
{
	echo "# execns: evaluation"
	echo
	echo "<!-- Generated by tests/harness/bench-report.sh from tests/bench-results/:"
	echo "do not edit.  make bench-report writes it, make lint checks it. -->"
	echo
	echo "The tables of \`make bench\` (tests/harness/bench.sh; the guest side is"
	echo "tests/guest/bench-execns.c), computed from the raw output of each kernel"
	echo "and boot, kept in tests/bench-results/KERNEL-BOOT.txt; \`make"
	echo "bench-report\` regenerates this page and its plots from it.  Under the"
	echo "default clock (icount: each raw file's first line names the clock) a"
	echo "\"ns\" is one guest instruction.  The method, the discussion of these"
	echo "figures and the other measurements (the load-time proof per kernel row,"
	echo "\`make stress\`, make check's time, guest reliability) are written by"
	echo "hand in [docs/bench-notes.md](bench-notes.md): its"
	echo "[Method](bench-notes.md#method) says how each figure below is taken."
	echo

	echo "## Ratios, their spread and the verdict"
	echo
	echo "Each cell: the ratio of each boot's pooled samples (boot 1 / boot 2), then"
	echo "[lowest-highest] over every round of both boots and the two boots' ratios,"
	echo "then the verdict: **met** when every one of those values is at or under the"
	echo "target, **missed** when every one is over it, *open* when they straddle it"
	echo "(the run's noise is larger than the distance to the target, so it shows the"
	echo "target neither met nor missed).  Ratios are B/A: execns over its anchor,"
	echo "loaded over unloaded, inside a table over outside, N tables over 1; the"
	echo "memory rows are bytes per table."
	echo
	table_head '| ratio | target |' '|---|---|' "$@"
	for n in $(cat "$tmp"/*.spread | awk '$1 !~ /_raw$/ && !seen[$1]++ { print $1 }'); do
		printf '| `%s` | %s |' "$n" "$(target "$n")"
		for k in "$@"; do
			printf ' %s |' "$(ratio_cell "$k" "$n")"
		done
		echo
	done
	echo
	echo "The \`*_raw\` ratios (plain medians, without the getppid normalisation)"
	echo "are in the raw files (\`ratio\` and \`round\` lines)."
	echo
	echo "### Hook costs"
	echo
	echo "What the uid hooks add per operation, in guest ns (instructions under the"
	echo "default icount clock; see [Method](bench-notes.md#method)) (the difference of"
	echo "the getppid-normalised medians, scaled back by the outside getppid loop;"
	echo "boot 1 / boot 2): \`inside\` is a task in a table against one outside with"
	echo "the hooks disarmed, \`outside-armed\` a task outside while another table"
	echo "lives (hooks armed, each returns at once for a task in no table).  An"
	echo "in-tree row has no hooks: its differences are its tables' own cost."
	echo
	table_head '| op | hooks on its path | variant |' '|---|---|---|' "$@"
	for op in setuid getprio fork exec; do
		case $op in
		setuid) on="a setresuid pair: alloc_uid (find_user), alloc_ucounts, commit_creds; twice" ;;
		getprio) on="getpriority(PRIO_USER) of an absent uid: find_user" ;;
		fork) on="fork+exit+wait: none (no release is hooked); the nproc count in the table's ucounts" ;;
		exec) on="fork+execve+wait: commit_creds and the above" ;;
		esac
		for v in inside outside-armed; do
			printf '| %s | %s | %s |' "$op" "$on" "$v"
			for k in "$@"; do
				printf ' %s |' "$(hook_cell "$k" "$op" "$v")"
			done
			echo
		done
	done
	echo

	for k in "$@"; do
		f=$(first "$k")
		echo "## $k: $(sed -n '1s/^# kernel //p' "$f")"
		echo
		echo "![exec latency by flag set on $k](img/flags-$k.png)"
		echo
		echo "Boot 1's samples, pooled over its rounds (\"x\": the op's time over the"
		echo "getppid loop timed right after it, see [Method](bench-notes.md#method));"
		echo "the other boots' are in"
		echo "tests/bench-results/$k-*.txt."
		echo
		echo "| comparison | variant | median | Q1 | Q3 | samples |"
		echo "|---|---|---|---|---|---|"
		awk '$1 == "result" && $7 > 0 && $2 !~ /_raw$/ {
			u = $3 ~ /getppid/ ? 1 : $4 >= 1e6 ? 1e6 : 1e3; s = u == 1 ? "x" : u == 1e6 ? "ms" : "us"
			printf "| `%s` | %s | %.3f %s | %.3f %s | %.3f %s | %d |\n", $2, $3, $4 / u, s, $5 / u, s, $6 / u, s, $7
		}' "$f"
		echo
		echo "Inside a table, against the number of live tables (ns per operation; the"
		echo "last column is the median of the op/getppid quotients, unitless):"
		echo
		echo "| tables | op | median ns | Q1 ns | Q3 ns | median op/getppid |"
		echo "|---|---|---|---|---|---|"
		awk '$1 == "tables" { printf "| %s | %s | %d | %d | %d | %s |\n", $2 == "1end" ? "1 (after)" : $2, $3, $4, $5, $6, $7 }' "$f"
		echo
		grep -E '^# ([0-9]* tables made|left)' "$f" | sed 's/^# /- /' || true
		echo
		echo "Slab growth per holder (bytes; cache, bytes, object size):"
		echo
		echo '```'
		awk '$1 == "slab" { printf "%-6s %-24s %7s %s\n", $2, $3, $4, $5 }' "$f"
		echo '```'
		echo
	done

	for k in "$@"; do
		kernel_in_tree "$k" || continue
		for b in "$@"; do
			[ "$b" != "$k-base" ] || trio "$b" "$k"
		done
	done

	echo "## Latency against live tables"
	echo
	echo "![lookup latency against live tables](img/tables.png)"
	echo
	echo "What these figures mean, target by target: [docs/bench-notes.md](bench-notes.md)."
} >"$tmp/out"
if [ "$check" = 1 ]; then
	rc=0
	diff -u --label docs/evaluation.md --label "its regeneration" "$out" "$tmp/out" || rc=1
	rm -rf "$tmp"
	[ "$rc" = 0 ] || echo "docs/evaluation.md is not what tests/bench-results/ gives: run make bench-report (and write by hand in docs/bench-notes.md, not in the page)"
	exit "$rc"
fi
mv "$tmp/out" "$out"
rm -rf "$tmp"
note "wrote $out and $(ls "$IMG" | wc -l) plots in $IMG"
