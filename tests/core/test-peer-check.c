/* test-peer-check.c — "Check peer" against the built-in peer and against closed ports, on
 * loopback only (tests/core). */
#include "config.h"

#include <gio/gio.h>
#include <string.h>

#include "qf-builtin-peer.h"
#include "qf-json.h"
#include "qf-peer-check.h"

/* A TCP port nothing listens on: bound, then closed again. */
static guint16
closed_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  guint16 port;

  g_assert_true (g_socket_bind (socket, any, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_socket_close (socket, NULL);
  return port;
}

static void
test_builtin_peer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfBuiltinPeer) peer = qf_builtin_peer_start (NULL, &error);
  g_autoptr(JsonObject) answer = NULL;

  g_assert_no_error (error);
  answer = qf_peer_check (qf_builtin_peer_get_host (peer), qf_builtin_peer_get_latency_port (peer),
                          qf_builtin_peer_get_bandwidth_port (peer), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (qf_json_get_string (answer, "responder", NULL), ==, "qualify");
  g_assert_cmpfloat (qf_json_get_double (answer, "latency_us", 0), >, 0);
  g_assert_true (json_object_get_boolean_member (answer, "bandwidth"));
  g_assert_nonnull (strstr (qf_json_get_string (answer, "summary", ""), "Qualify"));
}

static void
test_nothing_there (void)
{
  g_autoptr(GError) error = NULL;
  guint16 port = closed_port ();
  g_autoptr(JsonObject) answer = qf_peer_check ("127.0.0.1", port, port, NULL, &error);

  g_assert_no_error (error);
  g_assert_true (json_object_get_null_member (answer, "responder"));
  g_assert_false (json_object_get_boolean_member (answer, "bandwidth"));
  g_assert_nonnull (strstr (qf_json_get_string (answer, "summary", ""), "Nothing answers"));
}

static void
test_empty_host (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = qf_peer_check ("", 1, 1, NULL, &error);

  g_assert_null (answer);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

int
main (int   argc,
      char *argv[])
{
  g_setenv ("LANGUAGE", "en", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/peer-check/builtin-peer", test_builtin_peer);
  g_test_add_func ("/core/peer-check/nothing-there", test_nothing_there);
  g_test_add_func ("/core/peer-check/empty-host", test_empty_host);
  return g_test_run ();
}
