/* fuzz-iperf3-server.c — our iperf3-compatible bandwidth responder (src/engine/qf-iperf3.c) as a
 * client meets it: a real server runs on loopback in this process, each input is written to a
 * fresh control connection (the 37-byte cookie, then the 4-byte length and parameter JSON, then
 * anything), the write side is shut and the answer drained until the server closes. A server
 * that does not close within 15 s (its own timeouts are 10 s), or stops serving, is a failure.
 * The server requires an access token (qf-auth.h) but allows classic clients, so an ordinary
 * cookie goes on to the parameters and a marked one ("qfa1…") meets the token challenge. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qf-iperf3.h"

static QfIperf3Server *server;
static guint16 port;
static gint stop;

static gpointer
serve (gpointer data)
{
  g_autoptr(GError) error = NULL;

  if (!qf_iperf3_server_run (server, &stop, &error))
    g_error ("the bandwidth responder stopped: %s", error->message);
  return NULL;
}

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_autoptr(GError) error = NULL;

  server = qf_iperf3_server_new ("127.0.0.1", 0, &error);
  if (server == NULL)
    g_error ("bandwidth responder: %s", error->message);
  port = qf_iperf3_server_get_port (server);
  {
    g_autoptr(GBytes) token = g_bytes_new_static ("fuzzing-token-0123456789", 24);
    if (!qf_iperf3_server_set_token (server, token, TRUE, &error))
      g_error ("bandwidth responder: %s", error->message);
  }
  g_thread_unref (g_thread_new ("iperf3", serve, NULL));
  return 0;
}

/* connect() that survives libFuzzer's SIGALRM (-timeout): after EINTR the connection goes on in
 * the background, so wait for it and read its outcome. */
static int
connect_loopback (int                       fd,
                  const struct sockaddr_in *a)
{
  struct pollfd pfd = { fd, POLLOUT, 0 };
  int err = 0;
  socklen_t len = sizeof err;

  if (connect (fd, (const struct sockaddr *) a, sizeof *a) == 0)
    return 0;
  if (errno != EINTR && errno != EINPROGRESS)
    return -1;
  while (poll (&pfd, 1, 5000) < 0 && errno == EINTR)
    ;
  if (getsockopt (fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)
    {
      errno = err != 0 ? err : errno;
      return -1;
    }
  return 0;
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  gint64 deadline = g_get_monotonic_time () + 15 * G_USEC_PER_SEC;
  size_t off = 0;
  char buf[4096];
  int fd;

  a.sin_port = htons (port);
  fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_assert (fd >= 0);
  if (connect_loopback (fd, &a) != 0)
    g_error ("connect to the bandwidth responder: %s", g_strerror (errno));
  while (off < size)
    {
      ssize_t w = send (fd, data + off, size - off, MSG_NOSIGNAL);
      if (w <= 0)
        break;
      off += w;
    }
  shutdown (fd, SHUT_WR);
  for (;;)
    {
      struct pollfd pfd = { fd, POLLIN, 0 };
      gint64 left = (deadline - g_get_monotonic_time ()) / 1000;
      ssize_t n;

      if (left <= 0)
        g_error ("the bandwidth responder did not close a finished control connection");
      if (poll (&pfd, 1, left) <= 0)
        continue;
      n = recv (fd, buf, sizeof buf, 0);
      if (n <= 0)
        break;
    }
  close (fd);
  return 0;
}
