/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference execns cares about, in one place.  The
 * features are probed from the target's headers by compat-probe.sh (see
 * Kbuild); the core .c files use only what this header defines.
 * Force-included into every object.
 */
#ifndef _EXECNS_COMPAT_H
#define _EXECNS_COMPAT_H

#include <linux/types.h>
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

/*
 * The per-user counters still in struct user_struct, each behind the
 * config option that gives it a field.  Read without locks: the view is a
 * snapshot.
 */
struct execns_user_counters {
	s64 epoll_watches;
	long pipe_bufs;
	unsigned long unix_inflight;
	long locked_vm;
	int nr_watches;
};

#define execns_user_counters(up, c) do {				\
	(c)->epoll_watches = execns_user_epoll_read(up);		\
	(c)->pipe_bufs = atomic_long_read(&(up)->pipe_bufs);		\
	(c)->unix_inflight = READ_ONCE((up)->unix_inflight);		\
	(c)->locked_vm = execns_user_locked_vm(up);			\
	(c)->nr_watches = execns_user_nr_watches(up);			\
} while (0)

#ifdef CONFIG_EPOLL
#define execns_user_epoll_init(up) \
	percpu_counter_init(&(up)->epoll_watches, 0, GFP_KERNEL)
#define execns_user_epoll_free(up) percpu_counter_destroy(&(up)->epoll_watches)
#define execns_user_epoll_read(up) percpu_counter_sum(&(up)->epoll_watches)
#else
#define execns_user_epoll_init(up) 0
#define execns_user_epoll_free(up) do { } while (0)
#define execns_user_epoll_read(up) 0
#endif

#if defined(CONFIG_NET) || defined(CONFIG_IO_URING) || \
	defined(CONFIG_VFIO_PCI_ZDEV_KVM) || IS_ENABLED(CONFIG_IOMMUFD) || \
	defined(CONFIG_SECRETMEM)
#define execns_user_locked_vm(up) atomic_long_read(&(up)->locked_vm)
#else
#define execns_user_locked_vm(up) 0L
#endif

#ifdef CONFIG_WATCH_QUEUE
#define execns_user_nr_watches(up) atomic_read(&(up)->nr_watches)
#else
#define execns_user_nr_watches(up) 0
#endif

#endif /* _EXECNS_COMPAT_H */
