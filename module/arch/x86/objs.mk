# SPDX-License-Identifier: GPL-2.0
# x86's objects (Kbuild reads this last).  A native 32-bit kernel
# (ARCH=i386) gets native32.c alone: execns.ko then refuses to load, in one
# line (the port is x86_64's; native32.c says why).  It needs neither
# compat.h nor the syscall numbers compat-probe.sh reads from x86_64's
# tables, which such a kernel has not generated.
ifdef CONFIG_X86_32
execns-y := module/arch/x86/native32.o
CFLAGS_REMOVE_module/arch/x86/native32.o := -include $(src)/module/compat.h
endif
