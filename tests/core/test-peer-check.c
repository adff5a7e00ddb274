/* test-peer-check.c — "Check peer" against the built-in peer and against closed ports, on
 * loopback only (tests/core). */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

#include "qf-builtin-peer.h"
#include "qf-json.h"
#include "qf-peer-check.h"
#include "qf-responder.h"
#include "qf-session.h"

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
                          qf_builtin_peer_get_bandwidth_port (peer), NULL, NULL, NULL, &error);
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
  g_autoptr(JsonObject) answer = qf_peer_check ("127.0.0.1", port, port, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_true (json_object_get_null_member (answer, "responder"));
  g_assert_false (json_object_get_boolean_member (answer, "bandwidth"));
  g_assert_nonnull (strstr (qf_json_get_string (answer, "summary", ""), "Nothing answers"));
}

static void
test_empty_host (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = qf_peer_check ("", 1, 1, NULL, NULL, NULL, &error);

  g_assert_null (answer);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

#define TOKEN "a token of the helper machine, 42"

typedef struct
{
  QfResponder *responder;
  gint         stop;
} Responder;

static gpointer
responder_thread (gpointer data)
{
  Responder *r = data;

  return GINT_TO_POINTER (qf_responder_run (r->responder, &r->stop, NULL));
}

static char *
write_token (const char *dir,
             const char *name,
             const char *text)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_assert_cmpint (g_chmod (path, 0600), ==, 0);
  return path;
}

/* A responder that requires an access token: without the token file (or with the wrong one)
 * the check says our responder turned this PC away and why; with it, the probes measure. The
 * token never appears in the answer. */
static void
test_token (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) token = g_bytes_new_static (TOKEN, strlen (TOKEN));
  g_autofree char *dir = g_dir_make_tmp ("qf-peer-check-XXXXXX", &error);
  g_autofree char *right = write_token (dir, "right", TOKEN "\n");
  g_autofree char *wrong = write_token (dir, "wrong", "another token, long enough\n");
  QfResponderConfig config = { .bind_address = "127.0.0.1", .token = token };
  Responder r = { 0 };
  GThread *thread;
  guint16 port;
  const char *cases[][2] = { { NULL, "requires an access token" },
                             { wrong, "refused the access token" },
                             { right, NULL } };

  g_assert_no_error (error);
  r.responder = qf_responder_new (&config, &error);
  g_assert_no_error (error);
  port = qf_responder_get_port (r.responder);
  thread = g_thread_new ("test-peer-check-responder", responder_thread, &r);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) answer = qf_peer_check ("127.0.0.1", port, port, cases[i][0], NULL, NULL,
                                                    &error);
      g_autofree char *text = NULL;

      g_assert_no_error (error);
      text = qf_json_to_text (answer, FALSE);
      g_assert_null (strstr (text, TOKEN));
      g_assert_cmpstr (qf_json_get_string (answer, "responder", NULL), ==, "qualify");
      if (cases[i][1] != NULL)
        {
          g_assert_nonnull (strstr (qf_json_get_string (answer, "refused", ""), cases[i][1]));
          g_assert_nonnull (strstr (qf_json_get_string (answer, "summary", ""), "turned this PC away"));
          g_assert_true (json_object_get_null_member (answer, "latency_us"));
        }
      else
        {
          g_assert_false (json_object_has_member (answer, "refused"));
          g_assert_cmpfloat (qf_json_get_double (answer, "latency_us", 0), >, 0);
        }
    }

  /* A token file others can read: this PC's mistake, said with the fix, nothing probed. */
  g_assert_cmpint (g_chmod (right, 0644), ==, 0);
  g_assert_null (qf_peer_check ("127.0.0.1", port, port, right, NULL, NULL, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "chmod 600"));
  g_clear_error (&error);

  g_atomic_int_set (&r.stop, 1);
  g_assert_true (GPOINTER_TO_INT (g_thread_join (thread)));
  qf_responder_free (r.responder);
  g_unlink (right);
  g_unlink (wrong);
  g_rmdir (dir);
}

/* The session keeps the token file's path in the network tests' params, never the token; a
 * token file others can read is refused with the fix. */
static void
test_session_token_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("qf-peer-check-XXXXXX", &error);
  g_autofree char *path = write_token (dir, "token", TOKEN "\n");
  g_autoptr(QfProfile) profile = NULL;
  g_autoptr(QfSession) session = NULL;
  g_autofree char *text = NULL;
  guint with_token = 0;
  JsonArray *steps;

  profile = qf_profile_find ("arcs-wired-quick", &error);
  g_assert_no_error (error);
  session = qf_session_new (profile);
  g_assert_true (qf_session_set_token_file (session, path, &error));
  g_assert_no_error (error);
  text = qf_json_to_text (qf_session_get_json (session), FALSE);
  g_assert_null (strstr (text, TOKEN));
  steps = qf_json_get_array (qf_session_get_json (session), "steps");
  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      const char *test = qf_json_get_string (step, "test", "");
      const char *file = qf_json_get_string (qf_json_get_object (step, "params"), "token_file", NULL);

      if (g_str_equal (test, "latency") || g_str_equal (test, "cycle") || g_str_equal (test, "bandwidth")
          || g_str_equal (test, "loaded-latency") || g_str_equal (test, "rt-network-load"))
        {
          g_assert_cmpstr (file, ==, path);
          with_token++;
        }
      else
        g_assert_null (file);
    }
  g_assert_cmpuint (with_token, >, 0);

  g_assert_cmpint (g_chmod (path, 0644), ==, 0);
  g_assert_false (qf_session_set_token_file (session, path, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "chmod 600"));
  g_unlink (path);
  g_rmdir (dir);
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
  g_test_add_func ("/core/peer-check/token", test_token);
  g_test_add_func ("/core/peer-check/session-token-file", test_session_token_file);
  return g_test_run ();
}
