// SPDX-License-Identifier: GPL-2.0
/*
 * A test-only livepatch: it replaces set_cred_ucounts(), a caller whose
 * text execns's alloc_ucounts() hook relies on (its redirect is told by
 * the return address, module/uidhooks.c).  The replacement does what the
 * kernel's does, from this module's text, so its calls of alloc_ucounts()
 * come from an address the hook does not know: exactly what execns's guard
 * on set_cred_ucounts() exists to refuse.  test-uidtab-klp asserts that
 * arming uid tables is refused while this is enabled, and that this
 * cannot be enabled while a table lives; never part of execns.ko.
 *
 * alloc_ucounts() and put_ucounts() are not exported: the test passes
 * their addresses from /proc/kallsyms, and they are called through static
 * calls, direct branches, which indirect-branch tracking does not check
 * (the kernel's build seals the ENDBR of functions it never calls
 * indirectly).  Built only where CONFIG_LIVEPATCH is (Kbuild).
 */
#include <linux/module.h>
#include <linux/livepatch.h>
#include <linux/cred.h>
#include <linux/static_call.h>
#include <linux/user_namespace.h>

static unsigned long execns_klp_alloc_addr, execns_klp_put_addr;
module_param_named(alloc_ucounts, execns_klp_alloc_addr, ulong, 0400);
MODULE_PARM_DESC(alloc_ucounts, "the address of alloc_ucounts() (/proc/kallsyms)");
module_param_named(put_ucounts, execns_klp_put_addr, ulong, 0400);
MODULE_PARM_DESC(put_ucounts, "the address of put_ucounts() (/proc/kallsyms)");

/* Typed by the kernel's own prototypes (linux/user_namespace.h). */
DEFINE_STATIC_CALL_NULL(execns_klp_alloc, alloc_ucounts);
DEFINE_STATIC_CALL_NULL(execns_klp_put, put_ucounts);

/*
 * The new credentials' ucounts follow their (user namespace, uid): kept
 * when the key is unchanged, else looked up (made if need be), and the
 * old reference dropped.
 */
static int execns_klp_set_cred_ucounts(struct cred *new)
{
	struct ucounts *old = new->ucounts, *made;

	if (old->ns == new->user_ns && uid_eq(old->uid, new->uid))
		return 0;
	made = static_call(execns_klp_alloc)(new->user_ns, new->uid);
	if (!made)
		return -EAGAIN;
	new->ucounts = made;
	static_call(execns_klp_put)(old);
	return 0;
}

static struct klp_func execns_klp_funcs[] = {
	{ .old_name = "set_cred_ucounts", .new_func = execns_klp_set_cred_ucounts },
	{ }
};

static struct klp_object execns_klp_objs[] = {
	{ .funcs = execns_klp_funcs },	/* no name: vmlinux */
	{ }
};

static struct klp_patch execns_klp_patch = {
	.mod = THIS_MODULE,
	.objs = execns_klp_objs,
};

static int __init execns_klp_init(void)
{
	if (!execns_klp_alloc_addr || !execns_klp_put_addr)
		return -EINVAL;
	static_call_update(execns_klp_alloc, (typeof(&alloc_ucounts))execns_klp_alloc_addr);
	static_call_update(execns_klp_put, (typeof(&put_ucounts))execns_klp_put_addr);
	return klp_enable_patch(&execns_klp_patch);
}

static void __exit execns_klp_exit(void)
{
}

module_init(execns_klp_init);
module_exit(execns_klp_exit);
MODULE_DESCRIPTION("execns test helper: a livepatch of set_cred_ucounts()");
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
