/* fuzz-responder.c — the latency responder (src/engine/qf-responder.c) as a peer meets it: two
 * real responders run on loopback in this process (one plain, one emulating a poor link, which
 * takes the held-reply path) and each input is sent to one of them.
 *
 * Input: byte 0 picks the responder (bit 0: the emulating one; bit 2: a third one that requires
 * an access token, qf-auth.h, so the challenge and refusal paths are fuzzed) and TCP or UDP
 * (bit 1). TCP: the rest is written
 * to a fresh connection in chunks whose sizes come from byte 1 (sockperf framing across
 * segment boundaries), then the write side is shut and the reply drained until the responder
 * closes (it must, within 5 s). UDP: the rest is a series of datagrams, each a 2-byte big-endian
 * length and that many bytes (sockperf-style or our cycle protocol), then a valid cycle request
 * to the plain responder whose reply proves the responder is still serving. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qf-cycle.h"
#include "qf-responder.h"

typedef struct
{
  QfResponder *responder;
  guint16      port;
  GThread     *thread;
} Running;

static Running running[3];
static gint stop;
static int udp_fd = -1;   /* one client socket, so the responder sees one UDP peer */

static gpointer
serve (gpointer data)
{
  g_autoptr(GError) error = NULL;

  if (!qf_responder_run (data, &stop, &error))
    g_error ("responder stopped: %s", error->message);
  return NULL;
}

static void
start (guint    i,
       gboolean emulate,
       gboolean token)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_bytes_new_static ("fuzzing-token-0123456789", 24);
  QfResponderConfig config = { 0 };

  config.bind_address = "127.0.0.1";
  config.token = token ? bytes : NULL;
  config.max_clients = 8;
  config.max_test_seconds = 3600;
  if (emulate)
    {
      config.emulate.delay_ms = 0.2;
      config.emulate.jitter_ms = 0.2;
      config.emulate.loss_pct = 10;
    }
  running[i].responder = qf_responder_new (&config, &error);
  if (running[i].responder == NULL)
    g_error ("responder: %s", error->message);
  running[i].port = qf_responder_get_port (running[i].responder);
  running[i].thread = g_thread_new ("responder", serve, running[i].responder);
}

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  struct sockaddr_in any = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };

  start (0, FALSE, FALSE);
  start (1, TRUE, FALSE);
  start (2, FALSE, TRUE);
  udp_fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  g_assert (udp_fd >= 0);
  g_assert (bind (udp_fd, (struct sockaddr *) &any, sizeof any) == 0);
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

static struct sockaddr_in
address (guint i)
{
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  a.sin_port = htons (running[i].port);
  return a;
}

static void
fuzz_tcp (guint          i,
          const uint8_t *data,
          size_t         size)
{
  struct sockaddr_in a = address (i);
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  size_t chunk = 1, off = 0;
  guint8 buf[65536];
  int fd;

  if (size > 0)
    {
      chunk = data[0] == 0 ? size + 1 : data[0];
      data++;
      size--;
    }
  fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_assert (fd >= 0);
  if (connect_loopback (fd, &a) != 0)
    g_error ("connect to the responder: %s", g_strerror (errno));
  while (off < size)
    {
      size_t n = MIN (chunk, size - off);
      ssize_t w = send (fd, data + off, n, MSG_NOSIGNAL);
      if (w <= 0)
        break;   /* the responder dropped us: that is its right */
      off += w;
      /* Drain replies so a long input cannot fill both socket buffers. */
      while (recv (fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
        ;
    }
  shutdown (fd, SHUT_WR);
  for (;;)
    {
      struct pollfd pfd = { fd, POLLIN, 0 };
      gint64 left = (deadline - g_get_monotonic_time ()) / 1000;
      ssize_t n;

      if (left <= 0)
        g_error ("the responder did not close a connection whose client had finished");
      if (poll (&pfd, 1, left) <= 0)
        continue;
      n = recv (fd, buf, sizeof buf, 0);
      if (n <= 0)
        break;
    }
  close (fd);
}

static void
fuzz_udp (guint          i,
          const uint8_t *data,
          size_t         size)
{
  struct sockaddr_in a = address (i), plain = address (0);
  guint8 req[QF_CYCLE_PACKET_SIZE] = { 'Q', 'F', 'C', 'Y', QF_CYCLE_VERSION, QF_CYCLE_KIND_REQUEST };
  guint8 buf[65536];
  size_t off = 0;
  static guint64 seq = G_GUINT64_CONSTANT (1) << 40;
  guint64 be;

  while (off + 2 <= size)
    {
      size_t n = MIN ((size_t) (data[off] << 8 | data[off + 1]), size - off - 2);
      sendto (udp_fd, data + off + 2, n, 0, (struct sockaddr *) &a, sizeof a);
      off += 2 + n;
    }
  while (recv (udp_fd, buf, sizeof buf, MSG_DONTWAIT) >= 0)
    ;
  /* The plain responder must still answer (lost on loopback only under extreme load). */
  be = GUINT64_TO_BE (++seq);
  memcpy (req + 8, &be, 8);
  for (guint attempt = 0; attempt < 50; attempt++)
    {
      struct pollfd pfd = { udp_fd, POLLIN, 0 };
      sendto (udp_fd, req, sizeof req, 0, (struct sockaddr *) &plain, sizeof plain);
      while (poll (&pfd, 1, 100) > 0)
        {
          ssize_t n = recv (udp_fd, buf, sizeof buf, MSG_DONTWAIT);
          if (n == QF_CYCLE_PACKET_SIZE && buf[5] == QF_CYCLE_KIND_REPLY
              && memcmp (buf + 8, &be, 8) == 0)
            return;
        }
    }
  g_error ("the responder stopped answering UDP");
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  guint mode;

  if (size < 1)
    return 0;
  mode = data[0];
  if (mode & 2)
    fuzz_udp (mode & 4 ? 2 : mode & 1, data + 1, size - 1);
  else
    fuzz_tcp (mode & 4 ? 2 : mode & 1, data + 1, size - 1);
  return 0;
}
