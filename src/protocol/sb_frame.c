/*
 * sb_frame.c
 *		Frame header encoding and blocking full reads/writes, shared by the
 *		worker and the child.  The backend never blocks on a socket, so it
 *		uses only the header helpers and does its own non-blocking I/O.
 *		And the read of a child's /proc file, which both the backend and
 *		the worker make.
 */
#include "sb_protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* Write a frame header into buf (SB_FRAME_HEADER_SIZE bytes). */
void
sb_frame_header_encode(unsigned char *buf, uint32_t type, uint32_t length)
{
	memcpy(buf, &type, 4);
	memcpy(buf + 4, &length, 4);
}

/*
 * The start of /proc/<pid>/<file> in buf (NUL-terminated, at most size - 1
 * bytes); 0 if it cannot be read (the process is gone or exiting).
 */
int
sb_proc_read(pid_t pid, const char *file, char *buf, size_t size)
{
	char		path[64];
	int			fd;
	ssize_t		n;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int) pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return 1;
}

/* Read a frame header from buf. */
void
sb_frame_header_decode(const unsigned char *buf, uint32_t *type, uint32_t *length)
{
	memcpy(type, buf, 4);
	memcpy(length, buf + 4, 4);
}

/*
 * Write all of buf, retrying on EINTR; 0 on success, -1 with errno set.
 * Plain write(2): the child's seccomp policy has no send calls, and both the
 * worker and the child ignore SIGPIPE, so a closed peer is just EPIPE.
 */
int
sb_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0)
	{
		ssize_t		n = write(fd, p, len);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t) n;
	}
	return 0;
}

/*
 * Read at least min and at most cap bytes (what is there once min are in);
 * returns how many, or -1 on error or early EOF (errno 0).
 */
ssize_t
sb_read_some(int fd, void *buf, size_t min, size_t cap)
{
	char	   *p = buf;
	size_t		got = 0;

	while (got < min)
	{
		ssize_t		n = read(fd, p + got, cap - got);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
		{
			errno = 0;
			return -1;
		}
		got += (size_t) n;
	}
	return (ssize_t) got;
}

/* Read exactly len bytes; 0 on success, -1 on error or early EOF (errno 0). */
int
sb_read_all(int fd, void *buf, size_t len)
{
	return sb_read_some(fd, buf, len, len) < 0 ? -1 : 0;
}

/*
 * Send one whole frame.  Header and payload go out in one writev(), so on a
 * SOCK_SEQPACKET socket (the control channel) a frame is one record; on a
 * stream socket a short send is completed with sb_write_all().  0 on
 * success, -1 with errno set.
 */
int
sb_send_frame(int fd, uint32_t type, const void *payload, uint32_t length)
{
	unsigned char hdr[SB_FRAME_HEADER_SIZE];
	struct iovec iov[2];
	ssize_t		n;
	size_t		total = SB_FRAME_HEADER_SIZE + (size_t) length;

	sb_frame_header_encode(hdr, type, length);
	iov[0].iov_base = hdr;
	iov[0].iov_len = SB_FRAME_HEADER_SIZE;
	iov[1].iov_base = (void *) payload;
	iov[1].iov_len = length;
	do
		n = writev(fd, iov, length > 0 ? 2 : 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t) n == total)
		return 0;
	/* a short write on a stream socket: finish it */
	if ((size_t) n < SB_FRAME_HEADER_SIZE)
	{
		if (sb_write_all(fd, hdr + n, SB_FRAME_HEADER_SIZE - (size_t) n) < 0)
			return -1;
		n = SB_FRAME_HEADER_SIZE;
	}
	return sb_write_all(fd, (const char *) payload + (n - SB_FRAME_HEADER_SIZE),
						total - (size_t) n);
}

/*
 * Send one control record (header and payload, SOCK_SEQPACKET) with nfds
 * fds attached (SCM_RIGHTS, at most SB_RECORD_MAX_FDS): the worker hands
 * out data sockets and mailboxes so, the backend its call clocks.  flags
 * as for sendmsg(); returns 0 if the whole record went, -1 otherwise
 * (errno set).
 */
int
sb_send_record_fds(int sock, uint32_t type, const void *payload, uint32_t length,
				   const int *fds, int nfds, int flags)
{
	unsigned char buf[SB_FRAME_HEADER_SIZE + SB_CONTROL_MAX_PAYLOAD];
	struct msghdr msg;
	struct iovec iov;
	union
	{
		char		buf[CMSG_SPACE(sizeof(int) * SB_RECORD_MAX_FDS)];
		struct cmsghdr align;
	}			ctl;
	struct cmsghdr *cmsg;
	ssize_t		n;

	if (length > SB_CONTROL_MAX_PAYLOAD || nfds < 1 || nfds > SB_RECORD_MAX_FDS)
	{
		errno = EMSGSIZE;
		return -1;
	}
	sb_frame_header_encode(buf, type, length);
	if (length > 0)
		memcpy(buf + SB_FRAME_HEADER_SIZE, payload, length);
	iov.iov_base = buf;
	iov.iov_len = SB_FRAME_HEADER_SIZE + length;
	memset(&msg, 0, sizeof(msg));
	memset(&ctl, 0, sizeof(ctl));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t) nfds);
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int) * (size_t) nfds);
	memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * (size_t) nfds);
	do
		n = sendmsg(sock, &msg, flags);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (n != (ssize_t) iov.iov_len)
	{
		errno = EIO;
		return -1;
	}
	return 0;
}

/* sb_send_record_fds with one fd */
int
sb_send_record_fd(int sock, uint32_t type, const void *payload, uint32_t length, int fd,
				  int flags)
{
	return sb_send_record_fds(sock, type, payload, length, &fd, 1, flags);
}
