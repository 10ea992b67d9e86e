#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make demo`: execns at work inside a stock Debian kernel, step by step.

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
ns() { for n in "$@"; do printf '  %-6s %s\n' "$n" "$(readlink /proc/self/ns/$n)"; done; }

step "The execns module is loaded on $(uname -r); it answers on a spare syscall slot:"
run cat /sys/module/execns/parameters/syscall_nr /sys/module/execns/parameters/compat_syscall_nr
dmesg | grep 'execns:' | sed 's/^/  /'

step "This shell's namespaces (hostname $(hostname)):"
ns uts ipc net mnt

step "execns --uts --ipc --net: the new program starts in new namespaces, switched at exec time"
run execns --uts --ipc --net sh -c '
	hostname inside-execns
	echo "  new program: hostname $(hostname)"
	for n in uts ipc net mnt; do printf "  %-6s %s\n" $n "$(readlink /proc/self/ns/$n)"; done'

step "The caller is untouched: hostname $(hostname), same namespaces"
ns uts ipc net mnt

step "All descriptors above 2 are closed by execns, even without close-on-exec (fd 7 here):"
exec 7</etc/execns/mode
echo "  caller's fds: $(ls /proc/self/fd | tr '\n' ' ')"
run execns --ipc sh -c 'echo "  new program fds: $(ls /proc/self/fd | tr "\n" " ")"'
exec 7<&-

step "A failing execns (no such program) leaves the caller exactly as it was:"
run execns --mount --uts /no/such/program
echo "  exit status $? (127: not found, as env(1)); mount ns still $(readlink /proc/self/ns/mnt)"

step "Per-user accounting: the same uid gets a fresh budget in a new uid table (execns --uid-table)"
echo 8 >/proc/sys/fs/epoll/max_user_watches
echo "  fs.epoll.max_user_watches = 8 (per user)"
mkfifo /tmp/hold
demo-epoll hold 1000 8 </tmp/hold &
exec 8>/tmp/hold
sleep 1
echo "  in the global table, uid 1000's budget is spent:"
demo-epoll try 1000
echo "  execns --uid-table: a new table, where uid 1000 starts from zero:"
execns --uid-table sh -c 'echo "  table $(cat /proc/execns/self)"; demo-epoll try 1000; cat /proc/execns/tables | sed "s/^/    /"'
exec 8>&-
wait
echo 1000000 >/proc/sys/fs/epoll/max_user_watches

step "Done. Try it yourself: make shell (docs: man -l docs/execns.1, docs/design.md)"
