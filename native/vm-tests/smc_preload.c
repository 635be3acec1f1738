/* LD_PRELOAD=libsdp4j-smcpreload.so PROGRAM: every TCP socket PROGRAM creates becomes an SMC socket
 * (socket(AF_INET[6], SOCK_STREAM, IPPROTO_SMC), Linux 6.11+), as smc-tools' smc_run does; where the kernel refuses
 * one, the program gets the TCP socket it asked for. For the two-host smc-native step: PostgreSQL on SMC-R for
 * pgjdbc on `use smc`. Unlike librspreload's rsockets, these are kernel sockets: they survive fork (PostgreSQL's
 * backend per connection), poll/epoll and setuid as TCP sockets do. Datagram and Unix sockets are left alone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#ifndef IPPROTO_SMC
#define IPPROTO_SMC 256
#endif

int socket(int domain, int type, int protocol)
{
	static int (*real)(int, int, int);
	int s, err;

	if (!real)
		real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if ((domain == AF_INET || domain == AF_INET6) && (type & 0xf) == SOCK_STREAM &&
	    (protocol == 0 || protocol == IPPROTO_TCP)) {
		err = errno;
		s = real(domain, type, IPPROTO_SMC);
		if (s >= 0)
			return s;
		errno = err; /* no SMC here: the TCP socket asked for */
	}
	return real(domain, type, protocol);
}
