/*
 * sb_children.h
 *		The worker's bookkeeping of its children and clients, shared by the
 *		poll loop (sb_worker.c), admission (sb_admission.c), forking
 *		children (sb_fork.c), the pool of spares (sb_spares.c) and the
 *		timing of held children (sb_held.c).
 *		Private to the worker binary.
 */
#ifndef SB_CHILDREN_H
#define SB_CHILDREN_H

#include "sb_worker.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/*
 * The worker reads a running child's CPU clock when it could have spent
 * its CPU time at the earliest (what is left, divided among the CPUs), and
 * stops it SB_CPU_GRACE_US past its limit (SIGPROF, then SIGKILL
 * SB_STOP_GRACE_US later): the child's own profiling timer normally ends
 * it first, at the limit, but it can be blocked.  The timer
 * fires at a scheduler tick (up to 4 ms late at 250 Hz) and its handler
 * still sends where the code was (sb_where.c): the grace leaves it that
 * time.  (It also reads a running child's page tables every
 * SB_PTE_CHECK_US, below, and its CPU clock with them.)
 */
#define SB_CPU_GRACE_US 20000
/* a held child between calls: no handler to wait for */
#define SB_IDLE_CPU_GRACE_US 2000
/*
 * A call past its wall-clock deadline gets SIGPROF first, whose handler
 * sends where its code was and exits (sb_where.c); SIGKILL follows this
 * long after, whatever the child does.
 */
#define SB_STOP_GRACE_US 20000
#define SB_CPU_CHECK_MIN_US 1000
/*
 * Page tables are kernel memory RLIMIT_AS does not count: small mappings
 * spread over the address space (one or two pages each, a GiB apart) cost
 * up to two bytes of page tables per byte of address space, ~1 GiB per
 * child at vm.max_map_count's 65530 mappings.  The worker reads a running
 * or held child's VmPTE at least this often and kills it past
 * SB_PTE_BUDGET_KB (honest code: about 1/512 of what it touches).
 */
#define SB_PTE_CHECK_US 20000
#define SB_PTE_BUDGET_KB(memory_mb) (16384 + (uint64_t) (memory_mb) * 32)
/*
 * Read with them: the private memory it holds (RssAnon, RssShmem for
 * its mailbox, HugetlbPages, which the filter refuses to map anyway).
 * Honest code's private pages lie in its data (private writable
 * mappings, RLIMIT_DATA: what it inherited plus memory_mb, as sb_contain.c
 * sets it) and its stack, but for libraries' relocated pages
 * made read-only again (a few MB).  On a kernel without mseal, native code
 * can trade the address space of its inherited libraries for memory past
 * that limit (sb_seal.c: mapping over them, or making them writable once
 * its address space is full, which the kernel does not count as data);
 * the worker kills it past this much more than its data limit and its
 * stack, counted up to SB_STACK_CREDIT_KB (the kernel counts any mapping
 * made MAP_GROWSDOWN, or moved out of the stack, as stack: review 96).
 */
#define SB_RESIDENT_SLACK_KB 16384
#define SB_STACK_CREDIT_KB 8192
/* held children's clocks are read this often (sb_protocol.h) */
#define SB_HELD_CHECK_US ((uint64_t) SB_HELD_CHECK_MS * 1000)

typedef struct SbChild
{
	pid_t		pid;			/* 0: none */
	int			pidfd;
	int			data_fd;		/* the worker's end until handed over */
	int			mailbox_fd;		/* its mailbox (sb_protocol.h), until
								 * handed over with data_fd */
	uint32_t	shape;			/* SB_SPAWN_SHAPE_FLAGS it was prepared for */
	uint64_t	started_us;		/* when the call got it */
	uint64_t	deadline_us;
	uint64_t	cpu_before_us;	/* a spare's warm-up CPU, not the call's */
	clockid_t	cpu_clock;		/* its process CPU clock */
	uint64_t	cpu_limit_us;	/* the call's CPU time; 0 until it starts */
	uint64_t	cpu_check_us;	/* when to read its CPU clock (and its page
								 * tables' size) next */
	bool		killed;
	uint64_t	stop_us;		/* sent SIGPROF at its deadline: SIGKILL
								 * at this time; 0: not yet */
	bool		revoked;		/* an orphan: a reservation taken back */
	uint32_t	cause;			/* SbExitCause */
	uint64_t	data_limit_kb;	/* its RLIMIT_DATA once it set its own (0:
								 * not seen yet) */
	bool		ready;			/* a spare that finished warming up */
	bool		contained;		/* a spare given limits ahead of its call */
	SbSpawnRequest limits;		/* those limits */
	int			claim_fd;		/* a spare's claim token (our copy), or -1:
								 * readable once the child claims its call */
	bool		reserved;		/* reserved for its client's next call: the
								 * client holds its socket; not in flight */
	bool		seen;			/* held: its clock was read at least once */
	bool		in_call;		/* held: a call ran at the latest reading */
	uint64_t	seen_calls;		/* held: calls begun at the latest reading */
} SbChild;

typedef struct SbClient
{
	int			fd;				/* -1: free slot */
	bool		gone;			/* closed; slot freed once the child is reaped */
	bool		queued;			/* a SPAWN waits for a free slot */
	bool		owed;			/* another client's held child was ended
								 * for that SPAWN: the slot it frees is
								 * this client's */
	bool		evicted;		/* one of its own idle function children
								 * was ended for that SPAWN (once) */
	uint64_t	queued_us;
	SbSpawnRequest req;
	SbChild		child;			/* its call's child, or its reservation */
	bool		reserve;		/* wants a reservation once it has no child */
	SbSpawnRequest reserve_req; /* with these limits */
	uint64_t	last_active_us; /* when its latest call began or ended */
	SbChild		held[SB_MAX_HELD];	/* children kept for the calls of its
									 * current statements (sb_protocol.h) */
	int			nheld;
	const SbHeldClocks *clocks; /* their call clocks (SB_CTL_CLOCKS), or NULL */
} SbClient;

/*
 * Admission's counters (sb_admission.c): a slot of max_concurrent is taken
 * by each child in flight and each reservation.
 */
typedef struct SbAdmission
{
	uint32_t	max_concurrent; /* 0: no cap */
	int			in_flight;		/* running children, orphans included */
	int			nreserved;		/* reservations: spares clients hold */
	int			revoking;		/* reservations taken back, not yet reaped */
	int			target_spares;	/* what the pool refills to ... */
	uint32_t	default_shape;	/* ... with children of this shape */
} SbAdmission;

extern SbAdmission sb_adm;
extern uint64_t sb_ncpus;
extern uint64_t sb_last_busy_us;	/* last dispatch, exit or held call seen */
extern int	sb_nheld_all;		/* held children, all clients */

/* the clients (backends), and children no client will hear of again */
extern SbClient *sb_clients;
extern int	sb_nclients;		/* slots allocated; a free one has fd -1 */
extern SbChild *sb_orphans;
extern int	sb_norphans;

extern void sb_child_clear(SbChild *c);
extern void sb_worker_forget(void);

/* sb_worker.c: the poll loop's, for admission */
extern bool sb_worker_send(int fd, uint32_t type, const void *payload, uint32_t len);
extern bool sb_worker_send_channel(int control_fd, uint32_t type, const void *payload,
								   uint32_t len, const SbChild *c);
extern void sb_child_start(SbChild *c, uint32_t timeout_ms, uint32_t cpu_ms, uint64_t now);
extern void sb_child_stop(SbChild *c, uint64_t now, uint32_t cause);
extern void sb_client_gone(SbClient *cl);
extern void sb_orphan_child(SbClient *cl);

/* sb_admission.c */
extern void sb_request_slot(SbClient *cl, const SbSpawnRequest *req);
extern void sb_dispatch_queue(void);
extern void sb_expire_queue(uint64_t now);
extern void sb_grant_reservations(void);
extern bool sb_yielding(void);
extern bool sb_claim_back(SbChild *c);

/* sb_fork.c */
extern SbContainment sb_containment;
extern void sb_child_close_channel(SbChild *c);
extern bool sb_child_was_contained(pid_t pid);
extern bool sb_fork_child(uint32_t shape, bool spare, SbChild *out);
extern void sb_discard_child(SbChild *c);
extern uint64_t sb_now_us(void);
extern uint64_t sb_child_cpu_us(const SbChild *c);
extern bool sb_child_memory_over(SbChild *c);
extern void sb_start_reserved(SbClient *cl);

/* sb_spares.c: the pool of spares, at most SB_MAX_SPARES */
#define SB_MAX_SPARES 16
struct pollfd;
extern int	sb_spares_count(void);
extern bool sb_spares_have_shape(uint32_t shape);
extern bool sb_spares_has(pid_t pid);
extern bool sb_spares_add(uint32_t shape);
extern void sb_spares_note_call(const SbSpawnRequest *req);
extern bool sb_spares_take(const SbSpawnRequest *req, SbChild *out);
extern size_t sb_spares_poll(struct pollfd *pfds);
extern void sb_spares_polled(const struct pollfd *pfds);
extern void sb_spares_forget(void);

/* sb_held.c */
extern SbChild *sb_held_find(SbClient *cl, pid_t pid);
extern void sb_client_hold(SbClient *cl, pid_t pid);
extern bool sb_client_clocks(SbClient *cl, int fd);
extern int	sb_mailbox_create(void);
extern void sb_held_check(SbClient *cl, SbChild *c, uint64_t now);
extern bool sb_held_idle(const SbClient *cl, const SbChild *c, uint64_t now, uint64_t *since);
extern bool sb_held_evictable(const SbClient *cl, const SbChild *c, uint64_t now,
							  uint64_t *since);
extern bool sb_held_busy(void);

#endif							/* SB_CHILDREN_H */
