/*
 * sb_spares.c
 *		The worker's pool of spares: children forked ahead of any call, of
 *		the worker's default shape, that warm up (sb_child_main) and say
 *		so with one byte, 'R', on their data socket.
 *
 * Once two calls in a row ask for the same limits, a spare that is ready
 * gets them at once (sb_contain_ahead) and finishes its containment
 * (rlimits, Landlock, seccomp) before any call arrives, so that a call with
 * those limits no longer waits for it; a call with other limits takes an
 * uncontained spare or a fresh fork, and the spares contained with the old
 * limits are dropped.
 *
 * When to fork a spare (only while the worker is idle: fork blocks it) and
 * how many (pysandbox.spares, less the reservations clients hold) is the
 * poll loop's (sb_worker.c); which spare serves which call or reservation
 * is decided there too, through sb_spares_take().
 */
#include "sb_children.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static SbChild sb_spares[SB_MAX_SPARES];
static int	sb_nspares = 0;

/* the limits of the latest call, and how many calls in a row asked for them */
static SbSpawnRequest sb_recent_limits;
static int	sb_recent_streak = 0;

/* In a child: nothing of the pool or of the last call's limits is kept. */
void
sb_spares_forget(void)
{
	explicit_bzero(sb_spares, sizeof(sb_spares));
	explicit_bzero(&sb_recent_limits, sizeof(sb_recent_limits));
	sb_nspares = 0;
	sb_recent_streak = 0;
}

/* Do two requests contain a child alike?  (The deadline is the worker's.) */
static bool
sb_same_limits(const SbSpawnRequest *a, const SbSpawnRequest *b)
{
	return a->cpu_ms == b->cpu_ms && a->memory_mb == b->memory_mb && a->flags == b->flags;
}

/* Spares in the pool, warming up or ready. */
int
sb_spares_count(void)
{
	return sb_nspares;
}

/* Is any spare of this shape in the pool (warming up, or contained for other limits)? */
bool
sb_spares_have_shape(uint32_t shape)
{
	int			i;

	for (i = 0; i < sb_nspares; i++)
		if (sb_spares[i].shape == shape)
			return true;
	return false;
}

/* Is pid one of the spares? */
bool
sb_spares_has(pid_t pid)
{
	int			i;

	for (i = 0; i < sb_nspares; i++)
		if (sb_spares[i].pid == pid)
			return true;
	return false;
}

/* Fork a spare of this shape into the pool; false (errno set) if it could not be. */
bool
sb_spares_add(uint32_t shape)
{
	SbChild		spare;

	if (sb_nspares >= SB_MAX_SPARES)
	{
		errno = ENOSPC;
		return false;
	}
	if (!sb_fork_child(shape, true, &spare))
		return false;
	sb_spares[sb_nspares++] = spare;
	return true;
}

/*
 * A spare has warmed up: if recent calls agree on their limits (and the
 * spare's shape fits them), send it those limits now, so that it finishes
 * its containment while no call waits.  It then blocks, fully contained,
 * on the request that only a backend can send.
 */
static void
sb_contain_ahead(SbChild *c)
{
	SbSpawnRequest shape;

	if (sb_recent_streak < 2 ||
		(sb_recent_limits.flags & SB_SPAWN_SHAPE_FLAGS) != c->shape)
		return;
	/*
	 * only what contains it: the rest of the request that began the streak
	 * (its wall-clock limit, queue timeout, reservation) is that call's
	 * session's, and a spare may serve any session (review 157 F1: another
	 * role's timeout read off the child's stack)
	 */
	memset(&shape, 0, sizeof(shape));
	shape.cpu_ms = sb_recent_limits.cpu_ms;
	shape.memory_mb = sb_recent_limits.memory_mb;
	shape.flags = sb_recent_limits.flags;
	if (sb_send_frame(c->data_fd, SB_DATA_LIMITS, &shape, sizeof(shape)) < 0)
		return;					/* it died: its pidfd says so next round */
	c->contained = true;
	c->limits = shape;
}

/*
 * A call asks for a child with limits req: count the streak of calls with
 * the same limits, and drop the spares contained with others (they cannot
 * serve this call or, most likely, the next ones).  Children of the
 * preloaded process are forked on demand: their requests neither shape the
 * spares nor cost a spare its limits.
 */
void
sb_spares_note_call(const SbSpawnRequest *req)
{
	int			i;

	if (req->flags & SB_SPAWN_PRELOADED)
		return;
	if (sb_recent_streak > 0 && sb_same_limits(req, &sb_recent_limits))
		sb_recent_streak = 2;	/* two in a row is all that counts */
	else
	{
		sb_recent_limits = *req;
		sb_recent_streak = 1;
	}
	for (i = 0; i < sb_nspares; i++)
	{
		if (sb_spares[i].contained && !sb_same_limits(req, &sb_spares[i].limits))
		{
			sb_discard_child(&sb_spares[i]);
			sb_spares[i] = sb_spares[--sb_nspares];
			i--;
		}
	}
}

/*
 * Take a ready spare that can serve calls with limits req (its shape, and
 * the limits it was contained with, if any) out of the pool.  One still
 * warming up is never taken: the caller would wait for it.
 */
bool
sb_spares_take(const SbSpawnRequest *req, SbChild *out)
{
	uint32_t	shape = req->flags & SB_SPAWN_SHAPE_FLAGS;
	int			i;

	for (i = 0; i < sb_nspares; i++)
	{
		struct pollfd alive = {.fd = sb_spares[i].pidfd,.events = POLLIN};

		if (sb_spares[i].shape != shape || !sb_spares[i].ready ||
			(sb_spares[i].contained && !sb_same_limits(req, &sb_spares[i].limits)))
			continue;
		*out = sb_spares[i];
		sb_spares[i] = sb_spares[--sb_nspares];
		if (poll(&alive, 1, 0) != 0)
		{
			/* it died since it said it was ready */
			sb_discard_child(out);
			i = -1;				/* the array changed: look again */
			continue;
		}
		return true;
	}
	return false;
}

/*
 * The spares' entries of the poll set, two each (its pidfd, and its data
 * socket until it is ready), at pfds; returns how many.
 */
size_t
sb_spares_poll(struct pollfd *pfds)
{
	size_t		n = 0;
	int			i;

	for (i = 0; i < sb_nspares; i++)
	{
		pfds[n++] = (struct pollfd) {.fd = sb_spares[i].pidfd,.events = POLLIN};
		pfds[n++] = (struct pollfd) {.fd = sb_spares[i].ready ? -1 : sb_spares[i].data_fd,.events = POLLIN};
	}
	return n;
}

/*
 * What poll said of the entries sb_spares_poll() filled in at pfds (the
 * pool unchanged since): a spare that is ready is contained ahead if it
 * can be; one that died is dropped.
 */
void
sb_spares_polled(const struct pollfd *pfds)
{
	int			i;

	for (i = 0; i < sb_nspares; i++, pfds += 2)
	{
		char		byte = 0;

		if (pfds[1].fd >= 0 && pfds[1].revents &&
			read(sb_spares[i].data_fd, &byte, 1) == 1 && byte == 'R')
		{
			sb_spares[i].ready = true;
			sb_contain_ahead(&sb_spares[i]);
		}
		else if (pfds[0].revents || pfds[1].revents)
		{
			/*
			 * a spare died waiting (OOM killer, a failed step); if it died
			 * containing itself ahead, the next calls will say why: contain
			 * no more spares ahead until two agree
			 */
			fprintf(stderr, "pysandbox-worker: a spare sandbox process exited early\n");
			if (sb_spares[i].contained)
				sb_recent_streak = 0;
			sb_discard_child(&sb_spares[i]);
			sb_spares[i] = sb_spares[--sb_nspares];
			break;				/* the rest is seen on the next round */
		}
	}
}
