/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference execns cares about, in one place.  The
 * features are probed from the target's headers by compat-probe.sh (see
 * Kbuild); the core .c files use only what this header defines.
 * Force-included into every object.
 */
#ifndef _EXECNS_COMPAT_H
#define _EXECNS_COMPAT_H

#include "compat-probe.h"

/*
 * The function put_nsproxy() calls on the last reference: free_nsproxy()
 * until 7.x, deactivate_nsproxy() since.  execns drops an nsproxy it built
 * and never published, so calling it directly is the same as the last put.
 */
#ifdef EXECNS_HAVE_DEACTIVATE_NSPROXY
#define EXECNS_DROP_NSPROXY_SYMBOL "deactivate_nsproxy"
#else
#define EXECNS_DROP_NSPROXY_SYMBOL "free_nsproxy"
#endif

/*
 * put_nsproxy() is inline and calls an unexported function, so it is
 * spelled out here with that function resolved at load (drop).  The count
 * became a refcount_t in 6.2.
 */
#ifdef EXECNS_HAVE_NSPROXY_REFCOUNT
#define execns_put_nsproxy(ns, drop) \
	do { if (refcount_dec_and_test(&(ns)->count)) drop(ns); } while (0)
#else
#define execns_put_nsproxy(ns, drop) \
	do { if (atomic_dec_and_test(&(ns)->count)) drop(ns); } while (0)
#endif

/*
 * fs_struct lost its spinlock in 7.x; its seqlock's exclusive reader side
 * now serialises writers of users/root/pwd, as the spinlock did.
 */
#ifdef EXECNS_HAVE_FS_SEQLOCK
#define execns_fs_lock(fs)	read_seqlock_excl(&(fs)->seq)
#define execns_fs_unlock(fs)	read_sequnlock_excl(&(fs)->seq)
#else
#define execns_fs_lock(fs)	spin_lock(&(fs)->lock)
#define execns_fs_unlock(fs)	spin_unlock(&(fs)->lock)
#endif

#endif /* _EXECNS_COMPAT_H */
