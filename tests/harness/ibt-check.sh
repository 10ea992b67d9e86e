#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Indirect-branch tracking: on kernels built with CONFIG_X86_KERNEL_IBT, an
# indirect call into a kernel function whose ENDBR objtool sealed is a
# control-protection fault on a CPU that enforces IBT, and QEMU TCG does not
# enforce it.  execns reaches the kernel through static calls only (module/
# symbols.h), so the built module must contain no indirect call or jump at
# all, except in the tracepoint iterators (__traceiter_*), which call the
# probes attached to the module's tracepoints: functions whose address the
# tracing core took, with their ENDBR intact.
#
# Usage: ibt-check.sh MODULE.ko	(prints the offending functions; exit 1 if any)

set -euo pipefail
ko=${1:?usage: ibt-check.sh MODULE.ko}
# A paravirt call (5.10: "call *pv_ops+N", in .parainstructions) is
# rewritten at load by apply_paravirt() into a direct call or inline code,
# so it is no indirect branch either; it is told by its relocation, on the
# line after it.
bad=$(objdump -dr "$ko" | awk '
	/^[0-9a-f]+ <.*>:$/ { fn = $2 }
	pending && /R_X86_64_[0-9A-Z]+[[:space:]]+pv_ops\+/ { pending = ""; next }
	pending { print pending; pending = "" }
	/(call|jmp)[a-z]* +\*|__x86_indirect_(thunk|call_thunk|jump_thunk)/ {
		if (fn !~ /^<__traceiter_/) pending = fn
	}
	END { if (pending) print pending }' | sort | uniq -c)
[ -z "$bad" ] && exit 0
echo "indirect branches in $ko (count, function):"
echo "$bad"
exit 1
