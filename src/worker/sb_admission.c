/*
 * sb_admission.c
 *		Who gets a sandbox process, and when: the max_concurrent slots, the
 *		FIFO queue of calls waiting for one, reservations (a spare handed to
 *		a session ahead of its next call, and taken back when another call
 *		needs its slot or the pool needs a spare), and idle held children
 *		taken back for a call that has waited.
 *
 * A slot is taken by every child in flight (a call's, a held one, an
 * orphan not yet reaped: sb_adm.in_flight) and by every reservation
 * (sb_adm.nreserved).  A call that finds all taken waits in FIFO order up
 * to its queue_ms, then gets SB_CTL_BUSY; it is not answered BUSY while a
 * slot taken back for it is still dying (that slot is its own in a
 * moment).  The poll loop (sb_worker.c) calls sb_request_slot() for each
 * SPAWN, and sb_dispatch_queue(), sb_expire_queue() and
 * sb_grant_reservations() after every round; children's exits and kills
 * (sb_worker.c) free the slots.  Nothing here runs user code or blocks.
 */
#include "sb_worker.h"
#include "sb_children.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * Reservations (see sb_protocol.h).  A session idle this long gives its
 * reserved child up to another that wants one when no spare is left.
 */
#define SB_RESERVATION_STEAL_US 2000000

/*
 * A held child (a workspace's, or a LANGUAGE pysandbox function's kept
 * across rows) idle at least SB_YIELD_IDLE_US may be taken back for a call
 * that has waited SB_YIELD_WAIT_US, from a session holding more slots than
 * the waiting one (sb_yield_idle_held).
 */
#define SB_YIELD_IDLE_US 250000
#define SB_YIELD_WAIT_US 250000

static bool sb_revoke_oldest(SbClient *except, uint64_t min_idle_us);

/*
 * How many kept children are idle between two calls now (a workspace's, a
 * function's across rows): they hold slots though no call runs in them,
 * which a refused call's error says (review 74 M1).
 */
static uint32_t
sb_idle_held_count(uint64_t now)
{
	uint32_t	n = 0;

	for (int i = 0; i < sb_nclients; i++)
	{
		SbClient   *cl = &sb_clients[i];
		uint64_t	since;

		if (cl->fd < 0)
			continue;
		for (int j = 0; j < cl->nheld; j++)
			if (sb_held_idle(cl, &cl->held[j], now, &since))
				n++;
	}
	return n;
}

/* Give the client a child for its call: a matching spare, or a fresh one. */
static void
sb_dispatch(SbClient *cl, const SbSpawnRequest *req)
{
	uint32_t	shape = req->flags & SB_SPAWN_SHAPE_FLAGS;
	SbChild		child;
	SbSpawned	sp;
	bool		from_pool;

	/* a spare still warming up would make the caller wait: fork instead */
	sb_spares_note_call(req);
	from_pool = sb_spares_take(req, &child);
	if (!from_pool && !sb_fork_child(shape, false, &child))
	{
		static const char msg[] = "could not fork a sandbox process";

		if (!sb_worker_send(cl->fd, SB_CTL_FAILED, msg, sizeof(msg) - 1))
			sb_client_gone(cl);
		return;
	}

	if (from_pool)
		child.cpu_before_us = sb_child_cpu_us(&child);
	if (child.claim_fd >= 0)
	{
		/* this call is the child's: nothing can take it back now */
		close(child.claim_fd);
		child.claim_fd = -1;
	}
	if (!child.contained &&
		sb_send_frame(child.data_fd, SB_DATA_LIMITS, req, sizeof(*req)) < 0)
	{
		/* the spare died meanwhile: report that as this call's end */
		fprintf(stderr, "pysandbox-worker: a sandbox process died before its call\n");
	}
	sb_child_start(&child, req->timeout_ms, req->cpu_ms, sb_now_us());
	child.limits = *req;		/* a held child's next calls are timed so */
	sb_last_busy_us = child.started_us;
	cl->child = child;
	cl->last_active_us = child.started_us;
	sb_adm.in_flight++;

	sp.pid = child.pid;
	if (!sb_worker_send_channel(cl->fd, SB_CTL_SPAWNED, &sp, sizeof(sp), &cl->child))
	{
		sb_child_close_channel(&cl->child);
		sb_client_gone(cl);
		return;
	}
	sb_child_close_channel(&cl->child);
}

/* Is any request waiting for a slot? */
static bool
sb_any_queued(void)
{
	int			i;

	for (i = 0; i < sb_nclients; i++)
		if (sb_clients[i].fd >= 0 && sb_clients[i].queued)
			return true;
	return false;
}

/*
 * Start a client's request now if a slot is free and nobody waits longer;
 * otherwise queue it (first come, first served).
 */
void
sb_request_slot(SbClient *cl, const SbSpawnRequest *req)
{
	/*
	 * An idle session's reservation yields to a call that needs its slot:
	 * the slot frees once the child is reaped, and the queue moves then.
	 */
	if (sb_adm.max_concurrent > 0 && sb_adm.in_flight + sb_adm.nreserved >= (int) sb_adm.max_concurrent)
		(void) sb_revoke_oldest(cl, 0);
	if (sb_adm.max_concurrent > 0 &&
		(sb_adm.in_flight + sb_adm.nreserved >= (int) sb_adm.max_concurrent || sb_any_queued()))
	{
		cl->queued = true;
		cl->queued_us = sb_now_us();
		cl->req = *req;
	}
	else
		sb_dispatch(cl, req);
}

/*
 * Slots a client holds: its call's child (or reservation) and its held
 * children.
 */
static int
sb_client_slots(const SbClient *cl)
{
	return (cl->child.pid > 0 ? 1 : 0) + cl->nheld;
}

/*
 * Is a held child taken back for a waiting call still dying (in its
 * client's table, or an orphan since its client dropped it)?
 */
bool
sb_yielding(void)
{
	int			i,
				j;

	for (i = 0; i < sb_norphans; i++)
		if (sb_orphans[i].cause == SB_EXIT_YIELDED || sb_orphans[i].cause == SB_EXIT_EVICTED)
			return true;
	for (i = 0; i < sb_nclients; i++)
		for (j = 0; j < sb_clients[i].nheld; j++)
			if (sb_clients[i].held[j].killed &&
				(sb_clients[i].held[j].cause == SB_EXIT_YIELDED ||
				 sb_clients[i].held[j].cause == SB_EXIT_EVICTED))
				return true;
	return false;
}

/*
 * Will a slot free without taking anything back: a reservation taken back,
 * an orphan, a call's or a held child killed, each not reaped yet?
 */
static bool
sb_slot_coming(void)
{
	int			i,
				j;

	if (sb_adm.revoking > 0 || sb_norphans > 0)
		return true;
	for (i = 0; i < sb_nclients; i++)
	{
		if (sb_clients[i].child.pid > 0 && sb_clients[i].child.killed)
			return true;
		for (j = 0; j < sb_clients[i].nheld; j++)
			if (sb_clients[i].held[j].killed)
				return true;
	}
	return false;
}

/*
 * Every slot is taken and the oldest waiting call has waited
 * SB_YIELD_WAIT_US: take back one idle held child (a workspace's, or a
 * function's kept between rows or for a cursor), idle at least
 * SB_YIELD_IDLE_US, from the session holding the most slots, if it holds
 * more than one and more than the waiting session; its longest idle one.
 * Idle processes cost no CPU, so without this one session could keep
 * every slot forever (four workspaces and a few open cursors each), and no
 * other session's call would run; a session may not use it to take from
 * one that holds fewer than itself.  Nothing is taken back while a slot is
 * coming anyway (sb_slot_coming).  Its owner learns why at its next use
 * (SB_EXIT_YIELDED).
 */
static void
sb_yield_idle_held(const SbClient *waiting, uint64_t now)
{
	SbChild    *victim = NULL;
	SbClient   *most_client = NULL;
	SbExitCause cause;
	int			floor = sb_client_slots(waiting) + 1;
	int			most = 0;
	uint64_t	oldest = 0;
	int			i,
				j;

	if (floor < 2)
		floor = 2;
	if (now - waiting->queued_us < SB_YIELD_WAIT_US || sb_slot_coming())
		return;
	for (i = 0; i < sb_nclients; i++)
	{
		SbClient   *cl = &sb_clients[i];
		int			slots = sb_client_slots(cl);

		if (cl == waiting || cl->fd < 0 || slots < floor || slots < most)
			continue;
		for (j = 0; j < cl->nheld; j++)
		{
			uint64_t	since;

			if (!sb_held_idle(cl, &cl->held[j], now, &since) ||
				now - since < SB_YIELD_IDLE_US)
				continue;
			if (victim == NULL || slots > most || since < oldest)
			{
				victim = &cl->held[j];
				most_client = cl;
				most = slots;
				oldest = since;
			}
		}
	}
	if (victim == NULL)
		return;

	/*
	 * a function's child is a cache: its call site starts afresh, and a
	 * statement with more call sites than slots goes on, queued behind the
	 * call it yielded to (review 102); a workspace's state is gone, which
	 * its owner learns
	 */
	cause = sb_held_evictable(most_client, victim, now, &oldest) ?
		SB_EXIT_EVICTED : SB_EXIT_YIELDED;
	kill(victim->pid, SIGKILL);
	victim->killed = true;
	victim->cause = cause;
	/* the slot is the waiting call's, not the oldest's (review 101) */
	((SbClient *) waiting)->owed = true;
}

/*
 * A waiting call of a client that keeps idle function children of its own
 * (a statement with more call sites than slots, beside other sessions'
 * calls): end its most recently idle one at once, for its own call; the call
 * site starts afresh at its next call (SB_EXIT_EVICTED, no error).  A
 * workspace's child or a group_by call's is never ended so.  Without
 * this, such a statement waited queue_timeout for a slot only it could
 * free (reviews 99 and 101).  True if one was ended.
 */
static bool
sb_evict_own_idle(SbClient *waiting, uint64_t now)
{
	SbChild    *victim = NULL;
	uint64_t	latest = 0;

	for (int j = 0; j < waiting->nheld; j++)
	{
		uint64_t	since;

		/*
		 * the one idle the shortest time: a statement calls its sites in
		 * turn, so the one idle longest is the one called next (review 107)
		 */
		if (sb_held_evictable(waiting, &waiting->held[j], now, &since) &&
			(victim == NULL || since > latest))
		{
			victim = &waiting->held[j];
			latest = since;
		}
	}
	if (victim == NULL)
		return false;
	kill(victim->pid, SIGKILL);
	victim->killed = true;
	victim->cause = SB_EXIT_EVICTED;
	/*
	 * once per call, and no place ahead of older calls: the freed slot is
	 * the oldest waiting call's, which may be another session's (review
	 * 102: a statement that jumped the queue with each of its calls kept
	 * every slot for as long as it ran)
	 */
	waiting->evicted = true;
	return true;
}

/*
 * Start queued requests, oldest first, while slots are free; when none is,
 * an idle held child of a session holding several may yield to a waiting
 * call: the oldest's, or if no session holds more than that one (it is
 * the session holding them all), another's (review 99: the
 * session holding every slot waited at the head of the queue, and every
 * other session's call behind it, for queue_timeout).
 */
void
sb_dispatch_queue(void)
{
	for (;;)
	{
		SbClient   *oldest = NULL;
		int			i;

		/* a call a held child was ended for first, then the oldest */
		for (i = 0; i < sb_nclients; i++)
			if (sb_clients[i].fd >= 0 && sb_clients[i].queued &&
				(oldest == NULL || (sb_clients[i].owed && !oldest->owed) ||
				 (sb_clients[i].owed == oldest->owed &&
				  sb_clients[i].queued_us < oldest->queued_us)))
				oldest = &sb_clients[i];
		if (oldest == NULL)
			return;
		if (sb_adm.max_concurrent > 0 && sb_adm.in_flight + sb_adm.nreserved >= (int) sb_adm.max_concurrent)
		{
			uint64_t	now = sb_now_us();

			/*
			 * each waiting call that keeps idle function children of its
			 * own ends one; else the oldest first may take one back from
			 * another session (once one is, a slot is coming)
			 */
			for (i = 0; i < sb_nclients; i++)
				if (sb_clients[i].fd >= 0 && sb_clients[i].queued && !sb_clients[i].evicted)
					(void) sb_evict_own_idle(&sb_clients[i], now);
			sb_yield_idle_held(oldest, now);
			for (i = 0; i < sb_nclients; i++)
				if (sb_clients[i].fd >= 0 && sb_clients[i].queued && &sb_clients[i] != oldest)
					sb_yield_idle_held(&sb_clients[i], now);
			return;
		}
		oldest->queued = false;
		oldest->owed = false;
		oldest->evicted = false;
		sb_dispatch(oldest, &oldest->req);
	}
}

/*
 * A reserved child's call has begun (the child claimed it, or the backend
 * asked for a kill meanwhile): from now on it is in flight, with its
 * limits timed by the worker, and nothing can take it back.
 */
void
sb_start_reserved(SbClient *cl)
{
	SbChild    *c = &cl->child;

	if (c->claim_fd >= 0)
	{
		close(c->claim_fd);
		c->claim_fd = -1;
	}
	c->reserved = false;
	sb_child_start(c, c->limits.timeout_ms, c->limits.cpu_ms, sb_now_us());
	cl->reserve = true;			/* as the call that asked for it did */
	cl->last_active_us = c->started_us;
	sb_adm.nreserved--;
	sb_adm.in_flight++;
	sb_last_busy_us = c->started_us;
}

/*
 * Race a reserved child for its claim token: true if the worker won (the
 * child had not claimed its call, and now never will), false if the child
 * had claimed it (the call has begun).
 */
bool
sb_claim_back(SbChild *c)
{
	uint64_t	revoke = SB_CLAIM_REVOKE;

	return write(c->claim_fd, &revoke, sizeof(revoke)) == (ssize_t) sizeof(revoke);
}

/*
 * Take a client's reservation back, if its call has not begun: kill the
 * child and tell the client.  Returns true if it was taken back; if the
 * child had claimed its call already, that call has begun: it is started
 * instead, and stays.
 */
static bool
sb_revoke(SbClient *cl)
{
	SbSpawned	rev = {.pid = cl->child.pid};

	if (!sb_claim_back(&cl->child))
	{
		sb_start_reserved(cl);
		return false;
	}
	sb_orphan_child(cl);
	sb_orphans[sb_norphans - 1].revoked = true;
	sb_adm.revoking++;
	cl->reserve = false;		/* until its next call asks again */
	if (!sb_worker_send(cl->fd, SB_CTL_REVOKED, &rev, sizeof(rev)))
		sb_client_gone(cl);
	return true;
}

/*
 * Take back the reservation of the client idle longest (its latest call at
 * least min_idle_us ago), other than except's.  Returns true if one was
 * taken back; one whose call has begun meanwhile is started instead, and
 * the next is tried.
 */
static bool
sb_revoke_oldest(SbClient *except, uint64_t min_idle_us)
{
	for (;;)
	{
		SbClient   *victim = NULL;
		uint64_t	now = sb_now_us();
		int			i;

		for (i = 0; i < sb_nclients; i++)
		{
			SbClient   *cl = &sb_clients[i];

			if (cl != except && cl->fd >= 0 && cl->child.pid > 0 && cl->child.reserved &&
				now - cl->last_active_us >= min_idle_us &&
				(victim == NULL || cl->last_active_us < victim->last_active_us))
				victim = cl;
		}
		if (victim == NULL)
			return false;
		if (sb_revoke(victim))
			return true;
	}
}

/*
 * Hand reservations to the clients that want one (they have no child now),
 * the latest caller first, from the ready spares.  Where no spare is left
 * and none may be forked, the reservation of a session idle for
 * SB_RESERVATION_STEAL_US is taken back, so that the pool refills for the
 * active one.
 */
void
sb_grant_reservations(void)
{
	for (;;)
	{
		SbClient   *best = NULL;
		SbChild		spare;
		SbReserved	res;
		int			i;

		for (i = 0; i < sb_nclients; i++)
		{
			SbClient   *cl = &sb_clients[i];

			if (cl->fd >= 0 && cl->reserve && cl->child.pid == 0 && !cl->queued &&
				(best == NULL || cl->last_active_us > best->last_active_us))
				best = cl;
		}
		if (best == NULL ||
			(sb_adm.max_concurrent > 0 && sb_adm.in_flight + sb_adm.nreserved >= (int) sb_adm.max_concurrent))
			return;
		if (!sb_spares_take(&best->reserve_req, &spare))
		{
			/*
			 * Take one back only if that lets the pool refill with a
			 * spare for this client: none of its shape is warming up,
			 * and the refill forks its shape.
			 */
			uint32_t	shape = best->reserve_req.flags & SB_SPAWN_SHAPE_FLAGS;

			if (!sb_spares_have_shape(shape) &&
				sb_spares_count() + sb_adm.nreserved >= sb_adm.target_spares &&
				shape == sb_adm.default_shape)
				(void) sb_revoke_oldest(best, SB_RESERVATION_STEAL_US);
			return;
		}
		if (!spare.contained &&
			sb_send_frame(spare.data_fd, SB_DATA_LIMITS, &best->reserve_req,
						  sizeof(best->reserve_req)) < 0)
		{
			sb_discard_child(&spare);	/* it died meanwhile */
			continue;
		}
		memset(&res, 0, sizeof(res));
		res.pid = spare.pid;
		res.limits = best->reserve_req;
		spare.cpu_before_us = sb_child_cpu_us(&spare);
		if (!sb_worker_send_channel(best->fd, SB_CTL_RESERVED, &res, sizeof(res), &spare))
		{
			sb_discard_child(&spare);
			sb_client_gone(best);
			continue;
		}
		sb_child_close_channel(&spare);
		spare.contained = true;
		spare.limits = best->reserve_req;
		spare.reserved = true;
		best->child = spare;
		best->reserve = false;
		sb_adm.nreserved++;
	}
}

/*
 * Requests whose queue wait is over get SB_CTL_BUSY; not while a
 * reservation or an idle held child taken back to free a slot is still
 * dying: that slot is theirs in a moment, however short their wait.
 */
void
sb_expire_queue(uint64_t now)
{
	int			i;

	if (sb_adm.revoking > 0 || sb_yielding())
		return;

	for (i = 0; i < sb_nclients; i++)
	{
		SbClient   *cl = &sb_clients[i];

		if (cl->fd >= 0 && cl->queued &&
			now - cl->queued_us >= (uint64_t) cl->req.queue_ms * 1000)
		{
			SbBusy		busy = {.max_concurrent = sb_adm.max_concurrent,
				.waited_ms = (uint32_t) ((now - cl->queued_us) / 1000),
			.idle_held = sb_idle_held_count(now)};

			cl->queued = false;
			cl->owed = false;
			cl->evicted = false;
			if (!sb_worker_send(cl->fd, SB_CTL_BUSY, &busy, sizeof(busy)))
				sb_client_gone(cl);
		}
	}
}
