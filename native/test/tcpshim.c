/* TEST ONLY: a stand-in for librdmacm that implements the rsocket calls sdp4j uses with the kernel's TCP
 * sockets (the rsocket API mirrors BSD sockets one to one). It lets `make check` and the host JUnit tests drive
 * every JNI entry and the whole Java socket logic on a machine without RDMA:
 *   -Dsdp4j.rdmacm.lib=/path/to/libsdp4j-tcpshim.so
 * It is never shipped (not under META-INF/native) and the real transport never loads it by default. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
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

int rbind(int s, const struct sockaddr *a, socklen_t l) { return bind(s, a, l); }
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
int rclose(int s) { return close(s); }
ssize_t rrecv(int s, void *b, size_t n, int f) { return recv(s, b, n, f); }
ssize_t rsend(int s, const void *b, size_t n, int f) { return send(s, b, n, f | MSG_NOSIGNAL); }
int rpoll(struct pollfd *fds, nfds_t n, int timeout) { return poll(fds, n, timeout); }
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
