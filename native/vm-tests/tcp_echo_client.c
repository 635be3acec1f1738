/* tcp_echo_client: a plain BSD-socket TCP client, run under LD_PRELOAD=librspreload.so against the sdp4j echo
 * server (so rdma-core's preload library is the peer of sdp4j's server side).
 *   tcp_echo_client ADDR PORT BYTES   send BYTES of a pattern, half-close, read the echo back, compare; exit 0 if equal. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int die(const char *what)
{
	fprintf(stderr, "tcp_echo_client: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin;
	unsigned char *out, *in;
	size_t len, i, sent = 0, got = 0;
	ssize_t n;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: tcp_echo_client ADDR PORT BYTES\n");
		return 2;
	}
	len = (size_t)atol(argv[3]);
	out = malloc(len);
	in = malloc(len);
	if (!out || !in)
		return die("malloc");
	for (i = 0; i < len; i++)
		out[i] = (unsigned char)(i * 31 + (i >> 8));
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1)
		return die("inet_pton");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return die("socket");
	if (connect(fd, (struct sockaddr *)&sin, sizeof sin))
		return die("connect");
	/* interleave: the server echoes as it reads, so do not send everything before reading */
	while (got < len) {
		if (sent < len) {
			n = send(fd, out + sent, len - sent > 16384 ? 16384 : len - sent, 0);
			if (n <= 0)
				return die("send");
			sent += (size_t)n;
			if (sent == len)
				shutdown(fd, SHUT_WR);
		}
		n = recv(fd, in + got, len - got, sent < len ? MSG_DONTWAIT : 0);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				continue;
			return die("recv");
		}
		got += (size_t)n;
	}
	close(fd);
	if (got != len || memcmp(in, out, len)) {
		fprintf(stderr, "tcp_echo_client: echo differs: sent %zu, got %zu\n", len, got);
		return 1;
	}
	printf("tcp_echo_client: %zu bytes echoed byte for byte\n", len);
	return 0;
}
