// SPDX-License-Identifier: GPL-2.0
/*
 * percpu-probe: whether a module's static per-CPU variable works on a
 * kernel of the matrix in its guest.  SystemTap's runtime has one, and on
 * unstable-s390x under QEMU such a variable was addressed 4 GiB short
 * (STAP_S390X_SKIP in tests/tracing/host/common.sh): stap-check.sh loads this
 * module first and runs the SystemTap checks only if it loads.  Every
 * possible CPU's copy is written and read back through per_cpu(), which
 * is where the bad address oopsed.
 */
#include <linux/module.h>
#include <linux/percpu.h>

static DEFINE_PER_CPU(unsigned long, percpu_probe_var);

static int __init percpu_probe_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		per_cpu(percpu_probe_var, cpu) = cpu + 1;
	for_each_possible_cpu(cpu)
		if (per_cpu(percpu_probe_var, cpu) != cpu + 1)
			return -EIO;
	return 0;
}

static void __exit percpu_probe_exit(void)
{
}

module_init(percpu_probe_init);
module_exit(percpu_probe_exit);
MODULE_DESCRIPTION("execns test harness: a static per-CPU variable in a module");
MODULE_LICENSE("GPL");
