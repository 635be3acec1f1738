/* TEST ONLY: a stand-in for librdmacm that implements the rsocket calls sdp4j uses with the kernel's TCP
 * sockets (the rsocket API mirrors BSD sockets one to one). It lets `make check` and the host JUnit tests drive
 * every JNI entry and the whole Java socket logic on a machine without RDMA:
 *   -Dsdp4j.rdmacm.lib=/path/to/libsdp4j-tcpshim.so
 * It is never shipped (not under META-INF/native) and the real transport never loads it by default. */
#include <fcntl.h>
#include <stdarg.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rdma/rsocket.h>

int rsocket(int domain, int type, int protocol) { return socket(domain, type, protocol); }
int rbind(int s, const struct sockaddr *a, socklen_t l) { return bind(s, a, l); }
int rlisten(int s, int backlog) { return listen(s, backlog); }
int raccept(int s, struct sockaddr *a, socklen_t *l) { return accept(s, a, l); }
int rconnect(int s, const struct sockaddr *a, socklen_t l) { return connect(s, a, l); }
int rshutdown(int s, int how) { return shutdown(s, how); }
int rclose(int s) { return close(s); }
ssize_t rrecv(int s, void *b, size_t n, int f) { return recv(s, b, n, f); }
ssize_t rsend(int s, const void *b, size_t n, int f) { return send(s, b, n, f | MSG_NOSIGNAL); }
int rpoll(struct pollfd *fds, nfds_t n, int timeout) { return poll(fds, n, timeout); }
int rsetsockopt(int s, int lv, int nm, const void *v, socklen_t l) { return setsockopt(s, lv, nm, v, l); }
int rgetsockopt(int s, int lv, int nm, void *v, socklen_t *l) { return getsockopt(s, lv, nm, v, l); }
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
