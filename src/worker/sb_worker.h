/*
 * sb_worker.h
 *		Declarations shared by the parts of the exec'd worker binary.
 *
 * The worker is one process per session (later per cluster): it embeds
 * CPython, imports and warms pandas once, and forks one fresh child per call.
 * The child contains itself (sb_contain.c) before it reads any code.
 */
#ifndef SB_WORKER_H
#define SB_WORKER_H

#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "../protocol/sb_protocol.h"

/* a read-only directory the child may read under Landlock */
#define SB_MAX_READ_PATHS 32

typedef struct SbContainment
{
	pid_t		worker_pid;		/* the child's expected parent */
	int			userns_fd;		/* the mount namespace template's user and */
	int			mntns_fd;		/* mount namespaces, or -1 (sb_mountns.c) */
	uint32_t	flags;			/* SB_SPAWN_SHAPE_FLAGS of this child */
	int			n_read_paths;
	const char *read_paths[SB_MAX_READ_PATHS];
} SbContainment;

/* sb_contain.c: the ordered containment steps, run in the child */
extern int	sb_contain_prepare(int data_fd, int claim_fd, const SbContainment *c);
extern void sb_contain_finish(const SbContainment *c, const SbSpawnRequest *req,
							  int statm_fd);
extern void sb_child_fail(const char *step, int err) __attribute__((noreturn));

/* sb_landlock.c */
extern int	sb_landlock_abi(void);
extern int	sb_landlock_apply(const char *const *paths, int npaths);

/* sb_mountns.c */
extern bool sb_mountns_template(SbContainment *c);

/* sb_contain.c */
extern bool sb_namespaces_work(void);

/* sb_seccomp.c */
extern bool sb_seccomp_ready(void);
extern void sb_seccomp_prepare(void);
extern int	sb_seccomp_apply(pid_t self);

/* sb_where.c: SIGPROF in the child reports the line its code was at */
extern int	sb_where_install(void);
extern volatile sig_atomic_t sb_io_sending;

/* sb_io.c: the child's channel, the builtin module sb_io */
struct _object;
extern struct _object *sb_io_init(void);
extern bool sb_io_kept(void);
/* sb_memguard.c: sb_io's guards of numpy's object memory */
struct _typeobject;
typedef int (*sb_type_visitor) (struct _typeobject *type, void *arg);
extern int	sb_for_each_type(struct _typeobject *root, sb_type_visitor visit, void *arg);
extern struct _object *sb_io_finalizers_off(struct _object *self, struct _object *arg);
extern struct _object *sb_io_finalizers_on(struct _object *self, struct _object *unused);
/* sb_between.c: the checks of a serving child's reading between calls */
extern struct _object *sb_io_code_off(struct _object *self, struct _object *arg);
extern struct _object *sb_io_code_on(struct _object *self, struct _object *unused);
extern struct _object *sb_io_death_guard(struct _object *self, struct _object *args);
extern struct _object *sb_io_untrack_leaves(struct _object *self, struct _object *values);
extern struct _object *sb_io_death_callbacks_take(struct _object *self, struct _object *unused);
extern struct _object *sb_io_watch_classes(struct _object *self, struct _object *arg);
extern struct _object *sb_io_changed_class(struct _object *self, struct _object *unused);
extern struct _object *sb_io_rewatch_class(struct _object *self, struct _object *arg);
extern struct _object *sb_io_guard_object_stores(struct _object *self, struct _object *arg);
extern struct _object *sb_io_guard_object_buffers(struct _object *self, struct _object *arg);
extern struct _object *sb_io_guard_object_loops(struct _object *self, struct _object *arg);
extern struct _object *sb_io_guard_set_counts(struct _object *self, struct _object *unused);
extern struct _object *sb_io_positions_outside(struct _object *self, struct _object *args);
/* sb_addrguard.c: addresses kept from the code */
extern struct _object *sb_io_guard_addresses(struct _object *self, struct _object *unused);
extern struct _object *sb_io_mask_address(struct _object *self, struct _object *arg);
/* sb_hashguard.c: identity hashes keyed, right after Py_Initialize */
extern int	sb_guard_identity_hashes(void);
/* sb_hotpages.c: a /proc file read whole into an anonymous mapping */
extern ssize_t sb_read_proc_file(const char *path, char **buf, size_t *cap);
/* sb_seal.c: the worker's file mappings sealed before any call's child */
extern void sb_seal_read_switch(void);
extern int	sb_seal_file_mappings(void);
/* sb_dtypeguard.c: numpy's data-type sizes kept inside a C int */
extern struct _object *sb_io_guard_numpy_dtypes(struct _object *self, struct _object *args);
extern bool sb_claim_pending;	/* the next frame claims a spare's call */
extern uint32_t sb_call_cpu_ms; /* the call's CPU limit */

/* sb_python.c: the embedded interpreter */
extern int	sb_getrandom_all(void *buf, size_t len);
extern int	sb_python_start(const char *allowed_modules, const char *preload_modules);
extern void sb_python_preload(const char *preload_modules, char *buf, size_t size);
extern void sb_python_preloaded_elsewhere(const char *names);
extern void sb_python_warm_later(void);
extern int	sb_python_read_paths(const char **paths, int max);
extern void sb_python_before_fork(void);
extern void sb_python_after_fork_parent(void);
extern void sb_python_after_fork_child(void);
extern bool sb_python_map_mailbox(int fd);
extern void sb_python_mailbox_to_socket(void);
extern int	sb_python_serve(uint32_t flags, uint32_t cpu_ms, bool claim);
extern void sb_python_prewarm(void);
extern void sb_python_probe_call(void);
extern uint64_t sb_python_instance(void);

/* sb_worker.c: the child's side of a fork (from either process) */
/* the serve loop's frame: a child wipes the dead frames below it (sb_worker.c) */
extern void *sb_stack_live_end;
extern void sb_stack_forget(void *from);
extern void sb_child_main(uint32_t shape, bool spare, int data_fd, int mailbox_fd, int claim_fd)
			__attribute__((noreturn));

/* sb_preloaded.c: the process holding pysandbox.preload_modules */
#define SB_PRELOADED_COMM	"pysandbox-prel"	/* its name (comm) */
#define SB_WORKER_COMM		"pysandbox-worke"	/* the worker's, as exec gave it */
extern bool sb_preloaded_start(const char *preload, int worker_fd, bool pin,
							   char *names, size_t size);
extern bool sb_preloaded_running(void);
extern pid_t sb_preloaded_fork(uint32_t shape, bool spare, int data_fd, int mailbox_fd,
							   int claim_fd);
extern int	sb_preloaded_socket(void);
extern void sb_preloaded_lost(void) __attribute__((noreturn));

/* sb_hotpages.c */
extern void sb_hot_pages_pin(void);

#endif							/* SB_WORKER_H */
