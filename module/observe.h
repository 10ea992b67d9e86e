/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uid tables make their user_structs with the kernel's own cache and hash
 * them under the kernel's own lock (uidtab.c), both file-static in
 * kernel/user.c: uid_cachep and uidhash_lock.  symbols.c looks them up by
 * name, which needs data symbols in the symbol table (CONFIG_KALLSYMS_ALL).
 * Debian 11's arm64 kernel has none; there they are found by watching the
 * kernel's alloc_uid() and free_uid() use them, once, at load (observe.c).
 */
#ifndef _EXECNS_OBSERVE_H
#define _EXECNS_OBSERVE_H

/*
 * Fill execns_syms.uidhash_lock and .uid_cache where symbols.c found
 * neither; init only, after symbols.c and before the proof and the hooks.
 * It cannot fail the load: without them uid tables are refused.
 */
void execns_observe_init(void);

/* Why they could not be found that way (NULL: found, or not needed). */
const char *execns_observe_why(void);

#endif /* _EXECNS_OBSERVE_H */
