/* rs_echo: an echo server on rdma-core's rsocket API (a native peer for the sdp4j client; interop test).
 *   rs_echo ADDR PORT COUNT   accept COUNT connections one after another, echo each until EOF, then exit 0.
 * Prints "rs_echo: listening on ADDR:PORT" once listening (the test waits for it). Built on the host, run in the VM. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rsocket.h>

static int die(const char *what)
{
	fprintf(stderr, "rs_echo: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin;
	char buf[65536];
	long total;
	int lfd, fd, count, i, on = 1;
	ssize_t n, w, off;

	if (argc != 4) {
		fprintf(stderr, "usage: rs_echo ADDR PORT COUNT\n");
		return 2;
	}
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1)
		return die("inet_pton");
	count = atoi(argv[3]);
	lfd = rsocket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		return die("rsocket");
	rsetsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
	if (rbind(lfd, (struct sockaddr *)&sin, sizeof sin))
		return die("rbind");
	if (rlisten(lfd, 8))
		return die("rlisten");
	printf("rs_echo: listening on %s:%s\n", argv[1], argv[2]);
	fflush(stdout);
	for (i = 0; i < count; i++) {
		fd = raccept(lfd, NULL, NULL);
		if (fd < 0)
			return die("raccept");
		total = 0;
		while ((n = rrecv(fd, buf, sizeof buf, 0)) > 0) {
			for (off = 0; off < n; off += w) {
				w = rsend(fd, buf + off, (size_t)(n - off), 0);
				if (w <= 0)
					return die("rsend");
			}
			total += n;
		}
		if (n < 0)
			return die("rrecv");
		printf("rs_echo: connection %d: echoed %ld bytes\n", i + 1, total);
		fflush(stdout);
		rclose(fd);
	}
	rclose(lfd);
	return 0;
}
