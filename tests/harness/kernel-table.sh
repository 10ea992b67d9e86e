#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The README's table of kernels and what execns does on each, generated
# from tests/kernels.conf alone, so that it cannot drift from the matrix:
# `make kernel-table` writes it between the README's markers, and `make
# lint` fails when the README's differs from what this prints.
#
# Usage: kernel-table.sh		(the table, as Markdown)
#        kernel-table.sh --write	(replace the README's block)

. "$(dirname "$0")/common.sh"

BEGIN_MARK='<!-- kernel-table: generated from tests/kernels.conf by tests/harness/kernel-table.sh (make kernel-table); do not edit -->'
END_MARK='<!-- /kernel-table -->'

lane() {
	case $(kernel_field "$1" 3) in
	yes) echo "make check" ;;
	all) echo "make check-all" ;;
	*) echo "KERNEL=$1" ;;
	esac
}

# uid tables and forbid_unshare, from the verdict the proof must give.
tables() {
	case $(kernel_field "$1" 6) in
	proven) echo "yes (proven) | yes" ;;
	partial:*) echo "yes, partial: some counts may stay global (${2}) | $(
		case $2 in CONFIG_LTO_CLANG) echo refused ;; *) echo yes ;; esac)" ;;
	refused:*) echo "refused (${2}) | refused" ;;
	refused-insmod:*) echo "- | -" ;;
	in-tree) echo "the kernel's own (upstream/) | -" ;;
	esac
}

table() {
	local k v word ns tr dkms kernel
	echo "| row | arch | kernel | lane | namespaces | uid tables | forbid_unshare | tracing checks | DKMS checked |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for k in $(kernel_names); do
		v=$(kernel_field "$k" 6)
		word=${v#*:}
		kernel=$(kernel_desc "$k" | sed 's/ (.*//; s/|/\\|/g')
		ns="all the kernel has"
		case $v in refused-insmod:*) ns="refused at insmod ($word)" ;; esac
		tr=-
		! tools_row "$k" || tr="tools lane"
		dkms=-
		kernel_built "$k" || kernel_in_tree "$k" || dkms=yes
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$k" "$(kernel_arch "$k")" \
			"$kernel" "$(lane "$k")" "$ns" "$(tables "$k" "$word")" "$tr" "$dkms"
	done
}

if [ "${1:-}" = --write ]; then
	grep -qxF "$BEGIN_MARK" "$TOP/README.md" && grep -qxF "$END_MARK" "$TOP/README.md" ||
		die "README.md lacks the kernel-table markers (both lines, as kernel-table.sh writes them)"
	t=$(mktemp) new=$(mktemp)
	table >"$t"
	# The table from a file: awk -v would take its backslashes as escapes.
	awk -v b="$BEGIN_MARK" -v e="$END_MARK" -v f="$t" '
		$0 == b { print; while ((getline l <f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' "$TOP/README.md" >"$new"
	cat "$new" >"$TOP/README.md" && rm -f "$new" "$t"
else
	table
fi
