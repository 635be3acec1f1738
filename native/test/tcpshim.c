/* TEST ONLY: a stand-in for librdmacm that implements the rsocket calls sdp4j uses with the kernel's TCP
 * sockets (the rsocket API mirrors BSD sockets one to one). It lets `make check` and the host JUnit tests drive
 * every JNI entry and the whole Java socket logic on a machine without RDMA:
 *   -Dsdp4j.rdmacm.lib=/path/to/libsdp4j-tcpshim.so
 * It is never shipped (not under META-INF/native) and the real transport never loads it by default. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rdma/rsocket.h>

/* SOL_RDMA options, which the kernel does not know: kept per descriptor with rsockets' defaults (rsocket.c:
 * sqsize/rqsize 384, inline 64), inherited by accepted sockets, and refused with EINVAL once a connect started or
 * the socket was accepted (rsocket.c: "if (rs->state >= rs_opening) return EINVAL"), so the host tests see what
 * reaches rsetsockopt and when. */
#define SHIM_FDS 4096
static struct { uint32_t sq, rq, inl, iomap; int opened; } rdma_opt[SHIM_FDS];

static void rdma_opt_init(int fd, int from)
{
	if (fd < 0 || fd >= SHIM_FDS)
		return;
	if (from >= 0 && from < SHIM_FDS) {
		rdma_opt[fd] = rdma_opt[from];
	} else {
		rdma_opt[fd].sq = rdma_opt[fd].rq = 384;
		rdma_opt[fd].inl = 64;
		rdma_opt[fd].iomap = 0;
	}
	rdma_opt[fd].opened = from >= 0;
}

int rsocket(int domain, int type, int protocol)
{
	int fd = socket(domain, type, protocol);

	rdma_opt_init(fd, -1);
	return fd;
}

/* A port TCP already holds (a `both` listener binds TCP, then the rsocket listener on the same port: two port
 * spaces over RDMA, one over this shim): the rsocket side takes an ephemeral port instead, so the host tests
 * drive the `both` listener's logic (its rsocket side is then reachable only by its own port). A port another
 * rsocket holds stays EADDRINUSE, as with librdmacm. SO_REUSEADDR is off for the bind itself: with it on, two
 * sockets not yet listening share a port and the conflict would surface only in TCP's listen. */
static int bound_port[SHIM_FDS];

static int port_of(const struct sockaddr *a)
{
	return a->sa_family == AF_INET ? ntohs(((const struct sockaddr_in *)a)->sin_port)
	       : a->sa_family == AF_INET6 ? ntohs(((const struct sockaddr_in6 *)a)->sin6_port) : 0;
}

static int shim_holds(int port)
{
	int i;

	for (i = 0; i < SHIM_FDS; i++)
		if (__atomic_load_n(&bound_port[i], __ATOMIC_SEQ_CST) == port)
			return 1;
	return 0;
}

int rbind(int s, const struct sockaddr *a, socklen_t l)
{
	struct sockaddr_storage any;
	socklen_t sl = sizeof any;
	int r, err, was = 0, off = 0, p = a ? port_of(a) : 0;
	socklen_t wl = sizeof was;

	if (p && getsockopt(s, SOL_SOCKET, SO_REUSEADDR, &was, &wl) == 0 && was)
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &off, sizeof off);
	r = bind(s, a, l);
	if (r < 0 && errno == EADDRINUSE && p && !shim_holds(p) && l <= sizeof any) {
		memcpy(&any, a, l);
		if (a->sa_family == AF_INET)
			((struct sockaddr_in *)&any)->sin_port = 0;
		else
			((struct sockaddr_in6 *)&any)->sin6_port = 0;
		r = bind(s, (struct sockaddr *)&any, l);
	}
	err = errno;
	if (was)
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &was, sizeof was);
	if (r == 0 && s >= 0 && s < SHIM_FDS && getsockname(s, (struct sockaddr *)&any, &sl) == 0)
		__atomic_store_n(&bound_port[s], port_of((struct sockaddr *)&any), __ATOMIC_SEQ_CST);
	errno = err;
	return r;
}
int rlisten(int s, int backlog) { return listen(s, backlog); }

int raccept(int s, struct sockaddr *a, socklen_t *l)
{
	int fd = accept(s, a, l);

	rdma_opt_init(fd, s);
	return fd;
}

int rconnect(int s, const struct sockaddr *a, socklen_t l)
{
	if (s >= 0 && s < SHIM_FDS)
		rdma_opt[s].opened = 1;
	return connect(s, a, l);
}

int rshutdown(int s, int how) { return shutdown(s, how); }
/* Threads inside rpoll, per descriptor: librdmacm's rpoll looks each rsocket up and uses it without a reference,
 * so an rclose under a running rpoll is a use after free there (or another socket's queue once the number is
 * reused). Over kernel TCP it would pass unseen: the shim aborts instead, naming the descriptor. */
static int in_rpoll[SHIM_FDS];

int rclose(int s)
{
	int n = s >= 0 && s < SHIM_FDS ? __atomic_load_n(&in_rpoll[s], __ATOMIC_SEQ_CST) : 0;

	if (n) {
		fprintf(stderr, "tcpshim: rclose(%d) while %d thread(s) are in rpoll on it: a use after free under "
			"librdmacm\n", s, n);
		abort();
	}
	if (s >= 0 && s < SHIM_FDS)
		__atomic_store_n(&bound_port[s], 0, __ATOMIC_SEQ_CST);
	return close(s);
}
ssize_t rrecv(int s, void *b, size_t n, int f) { return recv(s, b, n, f); }
ssize_t rsend(int s, const void *b, size_t n, int f) { return send(s, b, n, f | MSG_NOSIGNAL); }
int rpoll(struct pollfd *fds, nfds_t n, int timeout)
{
	nfds_t i;
	int r, err;

	for (i = 0; i < n; i++)
		if (fds[i].fd >= 0 && fds[i].fd < SHIM_FDS)
			__atomic_add_fetch(&in_rpoll[fds[i].fd], 1, __ATOMIC_SEQ_CST);
	r = poll(fds, n, timeout);
	err = errno;
	for (i = 0; i < n; i++)
		if (fds[i].fd >= 0 && fds[i].fd < SHIM_FDS)
			__atomic_sub_fetch(&in_rpoll[fds[i].fd], 1, __ATOMIC_SEQ_CST);
	errno = err;
	return r;
}
static uint32_t *rdma_slot(int s, int nm)
{
	if (s < 0 || s >= SHIM_FDS)
		return NULL;
	switch (nm) {
	case RDMA_SQSIZE: return &rdma_opt[s].sq;
	case RDMA_RQSIZE: return &rdma_opt[s].rq;
	case RDMA_INLINE: return &rdma_opt[s].inl;
	case RDMA_IOMAPSIZE: return &rdma_opt[s].iomap;
	default: return NULL;
	}
}

int rsetsockopt(int s, int lv, int nm, const void *v, socklen_t l)
{
	uint32_t *slot;

	if (lv != SOL_RDMA)
		return setsockopt(s, lv, nm, v, l);
	slot = rdma_slot(s, nm);
	if (!slot || !v || l < sizeof(uint32_t) || rdma_opt[s].opened) {
		errno = slot ? EINVAL : ENOPROTOOPT;
		return -1;
	}
	*slot = *(const uint32_t *)v > 0xFFFE ? 0xFFFE : *(const uint32_t *)v;
	return 0;
}

int rgetsockopt(int s, int lv, int nm, void *v, socklen_t *l)
{
	uint32_t *slot;

	if (lv != SOL_RDMA)
		return getsockopt(s, lv, nm, v, l);
	slot = rdma_slot(s, nm);
	if (!slot || !v || !l || *l < sizeof(uint32_t)) {
		errno = slot ? EINVAL : ENOPROTOOPT;
		return -1;
	}
	*(uint32_t *)v = *slot;
	*l = sizeof(uint32_t);
	return 0;
}
int rgetpeername(int s, struct sockaddr *a, socklen_t *l) { return getpeername(s, a, l); }
int rgetsockname(int s, struct sockaddr *a, socklen_t *l) { return getsockname(s, a, l); }

int rfcntl(int s, int cmd, ...)
{
	va_list ap;
	int arg;

	va_start(ap, cmd);
	arg = va_arg(ap, int);
	va_end(ap);
	return fcntl(s, cmd, arg);
}

/* One pretend device: the opaque pointers are never dereferenced by sdp4j. */
static struct ibv_context *fake_devs[2] = { (struct ibv_context *)&fake_devs, NULL };

struct ibv_context **rdma_get_devices(int *num)
{
	if (num)
		*num = 1;
	return fake_devs;
}

void rdma_free_devices(struct ibv_context **list) { (void)list; }
