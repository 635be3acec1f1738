/*
 * accept4 -> accept and socket(type|flags) -> socket(type), for native servers under rdma-core 44's librspreload
 * (native/vm-tests/two-hosts/guest.sh).
 *
 *   LD_PRELOAD="libaccept4shim.so librspreload.so" server ...
 *
 * librspreload intercepts accept() but not accept4(): a server that accepts with accept4 (MariaDB, memcached, via
 * glibc's own symbol) reaches the kernel with the placeholder socket that rspreload keeps behind each rsocket, which
 * never listened (EINVAL), so no connection is ever accepted. And rsocket() refuses a type with SOCK_CLOEXEC or
 * SOCK_NONBLOCK or'ed in (ENOTSUP), so rspreload quietly falls back to a kernel TCP socket for a server that opens
 * its listener with socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0) (MariaDB): no RDMA at all. This shim answers accept4 with the next accept in the
 * preload chain (rspreload's: an rsocket for an rsocket, the real one otherwise) and then applies the flags the way
 * rspreload can (socket() likewise: the plain type down the chain, then the flags): SOCK_NONBLOCK through fcntl(F_SETFL), which rspreload maps to rfcntl. SOCK_CLOEXEC is tried with
 * F_SETFD and its failure ignored: rfcntl has no F_SETFD, and an rsocket is a process-local object that an exec'd
 * program could not use anyway. It implements nothing of rsockets itself; test-only, never shipped.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef int (*accept_fn)(int, struct sockaddr *, socklen_t *);
typedef int (*socket_fn)(int, int, int);

/* SOCK_NONBLOCK as O_NONBLOCK, SOCK_CLOEXEC as FD_CLOEXEC where possible; closes s and returns -1 on failure */
static int apply_flags(int s, int flags)
{
	int fl, saved;

	if (flags & SOCK_NONBLOCK) {
		fl = fcntl(s, F_GETFL);
		if (fl < 0 || fcntl(s, F_SETFL, fl | O_NONBLOCK) < 0) {
			saved = errno;
			close(s);
			errno = saved;
			return -1;
		}
	}
	if (flags & SOCK_CLOEXEC) {
		saved = errno;
		(void)fcntl(s, F_SETFD, FD_CLOEXEC);
		errno = saved;
	}
	return s;
}

/*
 * One line on stderr per TCP socket: what rspreload made of it. rspreload's socket() returns a descriptor open on
 * /dev/null for an rsocket (its index; the rsocket is elsewhere) and silently a kernel socket when rsocket() failed,
 * leaving rsocket()'s errno behind (the successful fallback does not clear it; errno 0: rspreload's preload_config
 * did not ask for an rsocket): a server listening on kernel TCP says why here instead of merely refusing RDMA
 * connections.
 */
static void report(int domain, int type, int s, int err)
{
	char path[32], target[64];
	ssize_t n;

	if (type != SOCK_STREAM || s < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", s);
	n = readlink(path, target, sizeof(target) - 1);
	target[n < 0 ? 0 : n] = '\0';
	if (!strcmp(target, "/dev/null"))
		dprintf(2, "accept4shim: socket(%s, SOCK_STREAM) = %d: an rsocket\n",
			domain == AF_INET ? "AF_INET" : "AF_INET6", s);
	else if (err)
		dprintf(2, "accept4shim: socket(%s, SOCK_STREAM) = %d: a KERNEL socket (%s), rsocket() failed: %s\n",
			domain == AF_INET ? "AF_INET" : "AF_INET6", s, target, strerror(err));
	else
		dprintf(2, "accept4shim: socket(%s, SOCK_STREAM) = %d: a kernel socket (%s), not intercepted\n",
			domain == AF_INET ? "AF_INET" : "AF_INET6", s, target);
}

__attribute__((visibility("default")))
int socket(int domain, int type, int protocol)
{
	static socket_fn next;
	int flags = type & (SOCK_NONBLOCK | SOCK_CLOEXEC), s, saved = errno;

	if (!next)
		next = (socket_fn)dlsym(RTLD_NEXT, "socket");
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	if (domain != AF_INET && domain != AF_INET6)
		return next(domain, type, protocol);
	errno = 0;
	s = next(domain, type & ~flags, protocol);
	report(domain, type & ~flags, s, errno);
	if (s >= 0)
		errno = saved;
	return s < 0 || !flags ? s : apply_flags(s, flags);
}

__attribute__((visibility("default")))
int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	static accept_fn next;
	int s;

	if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) {
		errno = EINVAL;
		return -1;
	}
	if (!next)
		next = (accept_fn)dlsym(RTLD_NEXT, "accept");
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	s = next(fd, addr, len);
	return s < 0 ? s : apply_flags(s, flags);
}
