/* qf-session.c — the session document, its atomic saving, resume and comparison (src/core).
 * See qf-session.h and docs/session-format.md. The JSON document is the model: every accessor
 * reads it, every change writes it, so what is saved is exactly what the object holds. */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "qf-advice.h"
#include "qf-audit.h"
#include "qf-auth.h"
#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-netifaces.h"
#include "qf-peer-check.h"
#include "qf-session-check.h"
#include "qf-session.h"
#include "qf-step.h"
#include "qf-sysinfo.h"

/* Live samples kept per step before decimation, and kept in the file after it. */
#define MAX_RECORDED_SAMPLES 500000
#define MAX_SAVED_SAMPLES    4000
/* Progress reports and live-figure objects kept per step. A step reports a few times a second,
 * so a day-long step would otherwise write a session larger than QF_SESSION_MAX_FILE_BYTES,
 * one Qualify would then refuse to read back. At the bound every other entry is dropped (the
 * first and the last stay), so a replay still covers the whole step at half the resolution. */
#define MAX_SAVED_POINTS     1024

struct _QfSession
{
  GObject     parent_instance;

  JsonObject *root;
  QfProfile  *profile;
  char       *dir;
  GPtrArray  *sample_stores;  /* per step: GArray of QfSample (t_ns relative to the step start) */
  guint64    *sample_dropped; /* per step */
};

G_DEFINE_FINAL_TYPE (QfSession, qf_session, G_TYPE_OBJECT)

enum
{
  SIGNAL_STEP_CHANGED,
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
qf_session_finalize (GObject *object)
{
  QfSession *self = QF_SESSION (object);

  g_clear_pointer (&self->root, json_object_unref);
  g_clear_object (&self->profile);
  g_free (self->dir);
  g_clear_pointer (&self->sample_stores, g_ptr_array_unref);
  g_free (self->sample_dropped);

  G_OBJECT_CLASS (qf_session_parent_class)->finalize (object);
}

static void
qf_session_class_init (QfSessionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = qf_session_finalize;

  /* A step's status, result or verdicts changed (and the session was saved if it has a dir). */
  signals[SIGNAL_STEP_CHANGED] =
    g_signal_new ("step-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  /* Anything else changed (people, network, notes, state). */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 0);
}

static void
qf_session_init (QfSession *self)
{
  self->sample_stores = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
}

static char *
now_iso8601 (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  return g_date_time_format_iso8601 (now);
}

static JsonArray *
steps_array (QfSession *self)
{
  return qf_json_get_array (self->root, "steps");
}

static void
init_sample_stores (QfSession *self)
{
  guint n = qf_session_get_n_steps (self);

  g_ptr_array_set_size (self->sample_stores, 0);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (self->sample_stores, g_array_new (FALSE, FALSE, sizeof (QfSample)));
  g_free (self->sample_dropped);
  self->sample_dropped = g_new0 (guint64, MAX (n, 1));
}

static void
reset_step (JsonObject *step)
{
  json_object_set_string_member (step, "status", "pending");
  json_object_set_null_member (step, "status_reason");
  json_object_set_null_member (step, "started_at");
  json_object_set_null_member (step, "finished_at");
  json_object_set_null_member (step, "duration_s");
  json_object_set_null_member (step, "error");
  json_object_set_null_member (step, "result");
  json_object_set_boolean_member (step, "partial", FALSE);
  json_object_set_array_member (step, "progress", json_array_new ());
  json_object_set_array_member (step, "live", json_array_new ());
  json_object_set_null_member (step, "samples");
}

/* The session's copy of the profile: its identity and every test's parameters and limits. */
static JsonObject *
profile_object (QfProfile *profile)
{
  g_autoptr(JsonObject) profile_json = qf_profile_to_json (profile);
  JsonObject *obj = json_object_new ();

  json_object_set_string_member (obj, "id", qf_profile_get_id (profile));
  json_object_set_int_member (obj, "version", qf_profile_get_version (profile));
  json_object_set_string_member (obj, "name", qf_profile_get_name (profile));
  json_object_set_string_member (obj, "description", qf_profile_get_description (profile));
  json_object_set_string_member (obj, "network_kind", qf_profile_get_network_kind (profile));
  qf_json_set_string_or_null (obj, "source", qf_profile_get_source (profile));
  json_object_set_object_member (obj, "tests",
                                 qf_json_object_deep_copy (qf_json_get_object (profile_json, "tests")));
  return obj;
}

/* Nothing known yet about the interface under test. */
static JsonObject *
unknown_network_object (void)
{
  JsonObject *network = json_object_new ();

  json_object_set_null_member (network, "iface");
  json_object_set_string_member (network, "kind", "unknown");
  json_object_set_null_member (network, "speed_mbps");
  json_object_set_null_member (network, "usb");
  json_object_set_null_member (network, "ssid");
  json_object_set_null_member (network, "signal_pct");
  return network;
}

static JsonObject *
no_peer_object (void)
{
  JsonObject *peer = json_object_new ();

  json_object_set_null_member (peer, "address");
  json_object_set_string_member (peer, "kind", "none");
  return peer;
}

/* The profile's own note, if it has one, as the first note. */
static JsonArray *
initial_notes (QfProfile *profile)
{
  JsonArray *notes = json_array_new ();

  if (qf_profile_get_note (profile) != NULL)
    {
      JsonObject *note = json_object_new ();
      json_object_set_string_member (note, "id", "profile");
      json_object_set_string_member (note, "text", qf_profile_get_note (profile));
      json_array_add_object_element (notes, note);
    }
  return notes;
}

/* A pending step for one test of the profile, titled and described by its step. */
static JsonObject *
pending_step (const QfProfileTest *test)
{
  const QfStepInfo *info = qf_step_lookup (test->step);
  JsonObject *step = json_object_new ();
  const char *title;

  if (test->title != NULL)
    title = _(test->title);
  else if (info != NULL)
    title = _(info->title);
  else
    title = test->key;

  json_object_set_string_member (step, "key", test->key);
  json_object_set_string_member (step, "test", test->step);
  json_object_set_string_member (step, "title", title);
  json_object_set_object_member (step, "params", qf_json_object_deep_copy (test->params));
  if (info != NULL && info->classic_command != NULL)
    {
      g_autofree char *classic = info->classic_command (test->params, NULL);
      qf_json_set_string_or_null (step, "classic_command", classic != NULL && *classic != '\0' ? classic : NULL);
    }
  else
    json_object_set_null_member (step, "classic_command");
  if (info != NULL && info->estimate_duration != NULL)
    json_object_set_double_member (step, "estimated_s", info->estimate_duration (test->params));
  else
    json_object_set_null_member (step, "estimated_s");
  reset_step (step);
  json_object_set_array_member (step, "verdicts", json_array_new ());
  return step;
}

static JsonArray *
pending_steps (QfProfile *profile)
{
  JsonArray *steps = json_array_new ();

  for (guint i = 0; i < qf_profile_get_n_tests (profile); i++)
    json_array_add_object_element (steps, pending_step (qf_profile_get_test (profile, i)));
  return steps;
}

/* The document of a new session; the order of its members is their order in session.json. */
static JsonObject *
new_document (QfProfile *profile)
{
  JsonObject *root = json_object_new ();
  g_autofree char *created = now_iso8601 ();
  g_autofree char *id = g_uuid_string_random ();

  json_object_set_string_member (root, "format", "qualify-session");
  json_object_set_int_member (root, "schema_version", QF_SESSION_SCHEMA_VERSION);
  json_object_set_string_member (root, "app_version", PACKAGE_VERSION);
  json_object_set_string_member (root, "id", id);
  json_object_set_string_member (root, "state", "new");
  json_object_set_string_member (root, "created_at", created);
  json_object_set_null_member (root, "finished_at");
  json_object_set_double_member (root, "elapsed_s", 0);
  json_object_set_string_member (root, "operator", "");
  json_object_set_string_member (root, "customer", "");
  json_object_set_string_member (root, "site", "");
  json_object_set_boolean_member (root, "quick", g_str_has_suffix (qf_profile_get_id (profile), "-quick"));
  json_object_set_null_member (root, "pc");
  json_object_set_object_member (root, "profile", profile_object (profile));
  json_object_set_object_member (root, "network", unknown_network_object ());
  json_object_set_object_member (root, "peer", no_peer_object ());
  json_object_set_null_member (root, "training");
  json_object_set_null_member (root, "audit");
  json_object_set_array_member (root, "notes", initial_notes (profile));
  json_object_set_null_member (root, "only");
  json_object_set_array_member (root, "steps", pending_steps (profile));
  json_object_set_null_member (root, "verdict");
  json_object_set_array_member (root, "advice", json_array_new ());
  json_object_set_null_member (root, "comparison");
  return root;
}

QfSession *
qf_session_new (QfProfile *profile)
{
  QfSession *self;

  g_return_val_if_fail (QF_IS_PROFILE (profile), NULL);

  self = g_object_new (QF_TYPE_SESSION, NULL);
  self->profile = g_object_ref (profile);
  self->root = new_document (profile);
  init_sample_stores (self);
  qf_session_recompute (self);
  return self;
}

/* ---- loading ------------------------------------------------------------------------------ */

static gboolean
format_error (GError     **error,
              const char  *display_name,
              const char  *what)
{
  g_set_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_FORMAT,
               _("%s is not a Qualify session: %s"), display_name, what);
  return FALSE;
}

QfSession *
qf_session_new_from_json (JsonObject  *root,
                          const char  *display_name,
                          GError     **error)
{
  g_autoptr(QfSession) self = NULL;
  g_autoptr(GError) profile_error = NULL;
  JsonObject *stored_profile;
  JsonArray *steps;

  g_return_val_if_fail (root != NULL, NULL);

  /* The whole document first, as strictly as the report checks it: nothing below, nor a
   * resumed run or a replay, meets a member of the wrong type, size or text. */
  if (!qf_session_check (root, TRUE, error))
    {
      g_prefix_error (error, "%s: ", display_name);
      return NULL;
    }
  if (qf_json_get_string (root, "id", NULL) == NULL || qf_json_get_string (root, "state", NULL) == NULL)
    return format_error (error, display_name, _("it has no id or state")), NULL;
  stored_profile = qf_json_get_object (root, "profile");
  steps = qf_json_get_array (root, "steps");
  if (stored_profile == NULL || steps == NULL)
    return format_error (error, display_name, _("it has no profile or steps")), NULL;

  /* The limits the session was judged against travel with it: rebuild the profile from them. */
  self = g_object_new (QF_TYPE_SESSION, NULL);
  self->profile = qf_profile_from_session (stored_profile, display_name, &profile_error);
  if (self->profile == NULL)
    return format_error (error, display_name, profile_error->message), NULL;

  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      QfStepStatus status;

      if (step == NULL || qf_json_get_string (step, "key", NULL) == NULL ||
          qf_json_get_string (step, "test", NULL) == NULL ||
          qf_json_get_object (step, "params") == NULL ||
          !qf_step_status_from_string (qf_json_get_string (step, "status", NULL), &status))
        {
          g_autofree char *what = g_strdup_printf (_("step %u lacks a key, test, parameters or valid status"), i);
          return format_error (error, display_name, what), NULL;
        }
    }

  self->root = qf_json_object_deep_copy (root);
  init_sample_stores (self);
  qf_session_recompute (self);
  return g_steal_pointer (&self);
}

QfSession *
qf_session_load (const char  *path,
                 GError     **error)
{
  g_autofree char *file = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) root = NULL;
  QfSession *self;
  gsize length;

  g_return_val_if_fail (path != NULL, NULL);

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    file = g_build_filename (path, "session.json", NULL);
  else
    file = g_strdup (path);

  if (!qf_session_read_file (file, &text, &length, error))
    return NULL;
  root = qf_session_parse_text (text, length, error);
  if (root == NULL)
    {
      g_prefix_error (error, "%s: ", file);
      return NULL;
    }
  self = qf_session_new_from_json (json_node_get_object (root), file, error);
  if (self != NULL && g_file_test (path, G_FILE_TEST_IS_DIR))
    self->dir = g_canonicalize_filename (path, NULL);
  else if (self != NULL && g_str_has_suffix (file, "/session.json"))
    self->dir = g_path_get_dirname (file);
  return self;
}

/* ---- saving ------------------------------------------------------------------------------- */

JsonObject *
qf_session_get_json (QfSession *self)
{
  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  return self->root;
}

char *
qf_session_to_data (QfSession *self)
{
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  node = json_node_init_object (json_node_alloc (), self->root);
  qf_session_scrub_text (node);
  return qf_json_to_text (self->root, TRUE);
}

char *
qf_session_get_default_base (void)
{
  return g_build_filename (g_get_user_data_dir (), "qualify", "sessions", NULL);
}

static char *
sanitize (const char *text)
{
  char *copy = g_strdup (text != NULL && *text != '\0' ? text : "pc");

  for (char *p = copy; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '.' && *p != '-')
      *p = '_';
  return copy;
}

/* Sessions made on one day share "<date>-<host>-<id8>"; a later one gets "-2", "-3", … */
#define MAX_SAME_NAME 100

static gboolean
folder_error (GError     **error,
              const char  *path,
              int          saved_errno)
{
  g_set_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_WRITE,
               _("Cannot create the session folder %s: %s"), path, g_strerror (saved_errno));
  return FALSE;
}

/* A new folder below the default base that no other session has: mkdir() is exclusive, so
 * two sessions started in the same second (or with the same first 8 id digits) never share. */
static char *
make_new_default_dir (QfSession  *self,
                      GError    **error)
{
  g_autofree char *base = qf_session_get_default_base ();
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%d");
  JsonObject *pc = qf_json_get_object (self->root, "pc");
  g_autofree char *host = sanitize (qf_json_get_string (pc, "hostname", g_get_host_name ()));
  g_autofree char *id8 = g_strndup (qf_session_get_id (self), 8);
  g_autofree char *stem = g_strdup_printf ("%s-%s-%s", date, host, id8);

  /* Folders we create are private to the operator (docs/security.md); the session and its
   * reports inside stay 0644. */
  if (g_mkdir_with_parents (base, 0700) != 0)
    return folder_error (error, base, errno), NULL;
  for (guint n = 1; n <= MAX_SAME_NAME; n++)
    {
      g_autofree char *name = n == 1 ? g_strdup (stem) : g_strdup_printf ("%s-%u", stem, n);
      g_autofree char *path = g_build_filename (base, name, NULL);

      if (g_mkdir (path, 0700) == 0)
        return g_steal_pointer (&path);
      if (errno != EEXIST)
        return folder_error (error, path, errno), NULL;
    }
  folder_error (error, base, EEXIST);
  return NULL;
}

gboolean
qf_session_set_dir (QfSession   *self,
                    const char  *dir,
                    GError     **error)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (QF_IS_SESSION (self), FALSE);

  if (dir == NULL)
    path = make_new_default_dir (self, error);
  else
    {
      path = g_canonicalize_filename (dir, NULL);
      /* An existing folder keeps the mode its owner gave it. */
      if (g_mkdir_with_parents (path, 0700) != 0)
        return folder_error (error, path, errno);
    }
  if (path == NULL)
    return FALSE;
  g_free (self->dir);
  self->dir = g_steal_pointer (&path);
  return qf_session_save (self, error);
}

static gboolean
exists_error (GError     **error,
              const char  *dir)
{
  g_set_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_EXISTS,
               _("%s already holds a session; it is left as it is. Continue that session, or choose another folder."),
               dir);
  return FALSE;
}

/* Saves the session as dir/file_name, atomically (temp file, fsync, rename, fsync). */
static gboolean
save_as (QfSession   *self,
         const char  *file_name,
         GError     **error)
{
  g_autofree char *path = g_build_filename (self->dir, file_name, NULL);
  g_autofree char *data = NULL;
  g_autoptr(GError) local_error = NULL;

  json_object_set_string_member (self->root, "app_version", PACKAGE_VERSION);
  data = qf_session_to_data (self);
  if (!qf_file_write_atomic (path, data, strlen (data), 0644, &local_error))
    {
      g_set_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_WRITE,
                   _("Cannot save the session: %s"), local_error->message);
      return FALSE;
    }
  return TRUE;
}

/* Publishes dir/claim_name as dir/session.json only if there is none (a dangling symlink counts):
 * link() never replaces, so of two runs given one folder at once only one gets it, and a reader
 * never sees a half-written or empty session.json. Where hard links are refused (FAT, some
 * network file systems) the check before the rename is all there is. */
static gboolean
publish_claim (QfSession   *self,
               const char  *claim_name,
               GError     **error)
{
  g_autofree char *claim = g_build_filename (self->dir, claim_name, NULL);
  g_autofree char *file = g_build_filename (self->dir, "session.json", NULL);
  int saved = 0;

  if (link (claim, file) == 0)
    g_unlink (claim);
  else if (errno == EEXIST)
    return g_unlink (claim), exists_error (error, self->dir);
  else if (g_file_test (file, G_FILE_TEST_EXISTS) || g_file_test (file, G_FILE_TEST_IS_SYMLINK))
    return g_unlink (claim), exists_error (error, self->dir);
  else if (g_rename (claim, file) != 0)
    saved = errno;
  if (saved != 0)
    {
      g_autofree char *why = g_strdup_printf ("%s: %s", file, g_strerror (saved));
      g_unlink (claim);
      g_set_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_WRITE,
                   _("Cannot save the session: %s"), why);
      return FALSE;
    }
  return TRUE;
}

gboolean
qf_session_set_new_dir (QfSession   *self,
                        const char  *dir,
                        GError     **error)
{
  g_autofree char *path = NULL;
  g_autofree char *file = NULL;
  g_autofree char *claim_name = NULL;

  g_return_val_if_fail (QF_IS_SESSION (self), FALSE);

  if (dir == NULL)
    return qf_session_set_dir (self, NULL, error);
  path = g_canonicalize_filename (dir, NULL);
  if (g_mkdir_with_parents (path, 0700) != 0)
    return folder_error (error, path, errno);
  file = g_build_filename (path, "session.json", NULL);
  if (g_file_test (file, G_FILE_TEST_EXISTS) || g_file_test (file, G_FILE_TEST_IS_SYMLINK))
    return exists_error (error, path);
  g_free (self->dir);
  self->dir = g_steal_pointer (&path);
  claim_name = g_strdup_printf (".session.json.new-%s", qf_session_get_id (self));
  if (save_as (self, claim_name, error) && publish_claim (self, claim_name, error))
    return TRUE;
  g_clear_pointer (&self->dir, g_free);
  return FALSE;
}

const char *
qf_session_get_dir (QfSession *self)
{
  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  return self->dir;
}

gboolean
qf_session_save (QfSession  *self,
                 GError    **error)
{
  g_return_val_if_fail (QF_IS_SESSION (self), FALSE);

  if (self->dir == NULL)
    return TRUE;
  return save_as (self, "session.json", error);
}

/* ---- simple members ----------------------------------------------------------------------- */

const char *
qf_session_get_id (QfSession *self)
{
  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  return qf_json_get_string (self->root, "id", NULL);
}

const char *
qf_session_get_state (QfSession *self)
{
  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  return qf_json_get_string (self->root, "state", "new");
}

QfProfile *
qf_session_get_profile (QfSession *self)
{
  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  return self->profile;
}

void
qf_session_set_people (QfSession  *self,
                       const char *operator_name,
                       const char *customer,
                       const char *site)
{
  g_return_if_fail (QF_IS_SESSION (self));

  json_object_set_string_member (self->root, "operator", operator_name ? operator_name : "");
  json_object_set_string_member (self->root, "customer", customer ? customer : "");
  json_object_set_string_member (self->root, "site", site ? site : "");
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
qf_session_set_only (QfSession         *self,
                     const char *const *keys)
{
  JsonArray *only;

  g_return_if_fail (QF_IS_SESSION (self));

  if (keys == NULL)
    {
      json_object_set_null_member (self->root, "only");
      return;
    }
  only = json_array_new ();
  for (guint i = 0; keys[i] != NULL; i++)
    json_array_add_string_element (only, keys[i]);
  json_object_set_array_member (self->root, "only", only);
}

GStrv
qf_session_get_only (QfSession *self)
{
  JsonArray *only;
  g_autoptr(GStrvBuilder) keys = NULL;

  g_return_val_if_fail (QF_IS_SESSION (self), NULL);

  only = qf_json_get_array (self->root, "only");
  if (only == NULL)
    return NULL;
  keys = g_strv_builder_new ();
  for (guint i = 0; i < json_array_get_length (only); i++)
    {
      JsonNode *key = json_array_get_element (only, i);
      if (JSON_NODE_HOLDS_VALUE (key) && json_node_get_value_type (key) == G_TYPE_STRING)
        g_strv_builder_add (keys, json_node_get_string (key));
    }
  return g_strv_builder_end (keys);
}

void
qf_session_set_peer (QfSession  *self,
                     const char *address,
                     const char *kind)
{
  JsonObject *peer = json_object_new ();
  JsonObject *old = qf_json_get_object (self->root, "peer");
  gboolean code_used;

  g_return_if_fail (QF_IS_SESSION (self));

  /* the code was typed for that helper: a different peer was not reached with it */
  code_used = qf_session_get_pairing_code_used (self)
              && g_strcmp0 (qf_json_get_string (old, "address", NULL), address) == 0
              && g_strcmp0 (qf_json_get_string (old, "kind", "none"), kind ? kind : "none") == 0;
  qf_json_set_string_or_null (peer, "address", address);
  json_object_set_string_member (peer, "kind", kind ? kind : "none");
  if (code_used)
    json_object_set_boolean_member (peer, "pairing_code", TRUE);
  json_object_set_object_member (self->root, "peer", peer);
  qf_session_recompute (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

gboolean
qf_session_set_token_file (QfSession   *self,
                           const char  *path,
                           GError     **error)
{
  g_autoptr(GBytes) token = NULL;
  g_autofree char *absolute = NULL;
  JsonArray *steps;

  g_return_val_if_fail (QF_IS_SESSION (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  /* Checked now, so a bad mode or size stops the run before it starts; then dropped. */
  token = qf_auth_token_load (path, error);
  if (token == NULL)
    return FALSE;
  absolute = g_canonicalize_filename (path, NULL);
  steps = qf_json_get_array (self->root, "steps");
  for (guint i = 0; steps != NULL && i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      const QfStepInfo *info = qf_step_lookup (qf_json_get_string (step, "test", ""));
      JsonObject *params = qf_json_get_object (step, "params");

      if (params != NULL && info != NULL && qf_step_takes_token (info))
        json_object_set_string_member (params, "token_file", absolute);
    }
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return TRUE;
}

void
qf_session_set_trace (QfSession *self,
                      gboolean   trace)
{
  JsonArray *steps;

  g_return_if_fail (QF_IS_SESSION (self));

  steps = qf_json_get_array (self->root, "steps");
  for (guint i = 0; steps != NULL && i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      const QfStepInfo *info = qf_step_lookup (qf_json_get_string (step, "test", ""));
      JsonObject *params = qf_json_get_object (step, "params");

      if (params != NULL && info != NULL && info->spikes != QF_STEP_SPIKES_NONE)
        json_object_set_boolean_member (params, "trace", trace);
    }
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
qf_session_set_pairing_code_used (QfSession *self,
                                  gboolean   used)
{
  JsonObject *peer;

  g_return_if_fail (QF_IS_SESSION (self));

  peer = qf_json_get_object (self->root, "peer");
  if (peer == NULL)
    return;
  if (used)
    json_object_set_boolean_member (peer, "pairing_code", TRUE);
  else if (json_object_has_member (peer, "pairing_code"))
    json_object_remove_member (peer, "pairing_code");
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

gboolean
qf_session_get_pairing_code_used (QfSession *self)
{
  JsonObject *peer;

  g_return_val_if_fail (QF_IS_SESSION (self), FALSE);

  peer = qf_json_get_object (self->root, "peer");
  return peer != NULL && json_object_has_member (peer, "pairing_code")
         && json_object_get_boolean_member (peer, "pairing_code");
}

const char *
qf_session_get_peer_address (QfSession *self)
{
  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  return qf_json_get_string (qf_json_get_object (self->root, "peer"), "address", NULL);
}

const char *
qf_session_get_peer_kind (QfSession *self)
{
  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  return qf_json_get_string (qf_json_get_object (self->root, "peer"), "kind", "none");
}

void
qf_session_set_peer_ports (QfSession *self,
                           guint16    latency_port,
                           guint16    bandwidth_port)
{
  JsonObject *peer;

  g_return_if_fail (QF_IS_SESSION (self));

  peer = qf_json_get_object (self->root, "peer");
  if (peer == NULL)
    return;
  json_object_remove_member (peer, "latency_port");
  json_object_remove_member (peer, "bandwidth_port");
  if (latency_port != 0 && latency_port != QF_PEER_DEFAULT_LATENCY_PORT)
    json_object_set_int_member (peer, "latency_port", latency_port);
  if (bandwidth_port != 0 && bandwidth_port != QF_PEER_DEFAULT_BANDWIDTH_PORT)
    json_object_set_int_member (peer, "bandwidth_port", bandwidth_port);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static guint16
peer_port (QfSession  *self,
           const char *member)
{
  gdouble port = qf_json_get_double (qf_json_get_object (self->root, "peer"), member, 0);

  return port >= 1 && port <= G_MAXUINT16 ? (guint16) port : 0;
}

guint16
qf_session_get_peer_latency_port (QfSession *self)
{
  g_return_val_if_fail (QF_IS_SESSION (self), 0);
  return peer_port (self, "latency_port");
}

guint16
qf_session_get_peer_bandwidth_port (QfSession *self)
{
  g_return_val_if_fail (QF_IS_SESSION (self), 0);
  return peer_port (self, "bandwidth_port");
}

void
qf_session_set_training (QfSession *self,
                         gdouble    delay_ms,
                         gdouble    jitter_ms,
                         gdouble    loss_pct,
                         gdouble    bloat_ms)
{
  JsonObject *training = json_object_new ();

  g_return_if_fail (QF_IS_SESSION (self));

  json_object_set_string_member (training, "kind", "emulated-link");
  json_object_set_double_member (training, "delay_ms", delay_ms);
  json_object_set_double_member (training, "jitter_ms", jitter_ms);
  json_object_set_double_member (training, "loss_pct", loss_pct);
  if (bloat_ms > 0)
    json_object_set_double_member (training, "bloat_ms", bloat_ms);
  json_object_set_object_member (self->root, "training", training);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

JsonObject *
qf_session_get_training (QfSession *self)
{
  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  return qf_json_get_object (self->root, "training");
}

void
qf_session_set_network (QfSession  *self,
                        const char *iface,
                        const char *kind,
                        guint       speed_mbps,
                        gint        usb,
                        const char *ssid,
                        gint        signal_pct)
{
  JsonObject *network = json_object_new ();

  g_return_if_fail (QF_IS_SESSION (self));

  qf_json_set_string_or_null (network, "iface", iface);
  json_object_set_string_member (network, "kind", kind ? kind : "unknown");
  if (speed_mbps > 0)
    json_object_set_int_member (network, "speed_mbps", speed_mbps);
  else
    json_object_set_null_member (network, "speed_mbps");
  if (usb >= 0)
    json_object_set_boolean_member (network, "usb", usb != 0);
  else
    json_object_set_null_member (network, "usb");
  qf_json_set_string_or_null (network, "ssid", ssid);
  if (signal_pct >= 0)
    json_object_set_int_member (network, "signal_pct", signal_pct);
  else
    json_object_set_null_member (network, "signal_pct");
  json_object_set_object_member (self->root, "network", network);
  qf_session_recompute (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
qf_session_set_network_from_sysfs (QfSession  *self,
                                   const char *root,
                                   const char *iface)
{
  QfNetIfaceSysfs facts;

  g_return_if_fail (QF_IS_SESSION (self));

  if (iface == NULL)
    {
      qf_session_set_network (self, NULL, "unknown", 0, -1, NULL, -1);
      return;
    }
  qf_net_iface_read_sysfs (root, iface, &facts);
  qf_session_set_network (self, iface, facts.kind, facts.speed_mbps, facts.usb, NULL, facts.signal_pct);
}

void
qf_session_set_network_audit (QfSession  *self,
                              const char *iface,
                              JsonArray  *checks)
{
  JsonObject *audit;

  g_return_if_fail (QF_IS_SESSION (self));
  if (checks == NULL)
    {
      json_object_remove_member (self->root, "network_audit");
      return;
    }
  audit = json_object_new ();
  json_object_set_string_member (audit, "iface", iface);
  json_object_set_array_member (audit, "checks", checks);
  json_object_set_object_member (self->root, "network_audit", audit);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

const char *
qf_session_get_iface (QfSession *self)
{
  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  return qf_json_get_string (qf_json_get_object (self->root, "network"), "iface", NULL);
}

gboolean
qf_session_capture_system (QfSession   *self,
                           const char  *root,
                           GError     **error)
{
  g_autoptr(QfSysinfo) info = NULL;
  g_autoptr(GPtrArray) checks = NULL;
  g_autoptr(GError) audit_error = NULL;

  g_return_val_if_fail (QF_IS_SESSION (self), FALSE);

  info = qf_sysinfo_read (root, error);
  if (info == NULL)
    return FALSE;
  json_object_set_object_member (self->root, "pc", qf_sysinfo_to_pc_json (info));

  checks = qf_audit_run (root ? root : "/", &audit_error);
  if (checks != NULL)
    {
      JsonObject *audit = json_object_new ();
      json_object_set_array_member (audit, "checks", qf_audit_to_json (checks));
      json_object_set_object_member (self->root, "audit", audit);
    }
  else
    {
      json_object_set_null_member (self->root, "audit");
      g_debug ("readiness audit: %s", audit_error->message);
    }
  qf_session_recompute (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return TRUE;
}

void
qf_session_add_note (QfSession  *self,
                     const char *id,
                     const char *text)
{
  JsonArray *notes;
  JsonObject *note;

  g_return_if_fail (QF_IS_SESSION (self));
  g_return_if_fail (id != NULL && text != NULL);

  notes = qf_json_get_array (self->root, "notes");
  if (notes == NULL)
    {
      notes = json_array_new ();
      json_object_set_array_member (self->root, "notes", notes);
    }
  for (guint i = 0; i < json_array_get_length (notes); i++)
    {
      note = json_array_get_object_element (notes, i);
      if (g_strcmp0 (qf_json_get_string (note, "id", NULL), id) == 0)
        {
          json_object_set_string_member (note, "text", text);
          g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
          return;
        }
    }
  note = json_object_new ();
  json_object_set_string_member (note, "id", id);
  json_object_set_string_member (note, "text", text);
  json_array_add_object_element (notes, note);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* ---- steps -------------------------------------------------------------------------------- */

guint
qf_session_get_n_steps (QfSession *self)
{
  JsonArray *steps;

  g_return_val_if_fail (QF_IS_SESSION (self), 0);
  steps = steps_array (self);
  return steps != NULL ? json_array_get_length (steps) : 0;
}

JsonObject *
qf_session_get_step (QfSession *self,
                     guint      index)
{
  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  g_return_val_if_fail (index < qf_session_get_n_steps (self), NULL);
  return json_array_get_object_element (steps_array (self), index);
}

gint
qf_session_find_step (QfSession  *self,
                      const char *key)
{
  g_return_val_if_fail (QF_IS_SESSION (self), -1);

  for (guint i = 0; i < qf_session_get_n_steps (self); i++)
    if (g_strcmp0 (qf_session_get_step_key (self, i), key) == 0)
      return (gint) i;
  return -1;
}

QfStepStatus
qf_session_get_step_status (QfSession *self,
                            guint      index)
{
  QfStepStatus status = QF_STEP_STATUS_PENDING;
  JsonObject *step = qf_session_get_step (self, index);

  qf_step_status_from_string (qf_json_get_string (step, "status", NULL), &status);
  return status;
}

const char *
qf_session_get_step_key (QfSession *self,
                         guint      index)
{
  return qf_json_get_string (qf_session_get_step (self, index), "key", NULL);
}

const char *
qf_session_get_step_test (QfSession *self,
                          guint      index)
{
  return qf_json_get_string (qf_session_get_step (self, index), "test", NULL);
}

const char *
qf_session_get_step_title (QfSession *self,
                           guint      index)
{
  return qf_json_get_string (qf_session_get_step (self, index), "title", NULL);
}

JsonObject *
qf_session_get_step_params (QfSession *self,
                            guint      index)
{
  return qf_json_get_object (qf_session_get_step (self, index), "params");
}

gdouble
qf_session_get_step_estimate (QfSession *self,
                              guint      index)
{
  return qf_json_get_double (qf_session_get_step (self, index), "estimated_s", 0);
}

static gboolean
step_changed (QfSession  *self,
              guint       index,
              GError    **error)
{
  gboolean ok;

  qf_session_recompute (self);
  ok = qf_session_save (self, error);
  g_signal_emit (self, signals[SIGNAL_STEP_CHANGED], 0, index);
  return ok;
}

gboolean
qf_session_begin_step (QfSession  *self,
                       guint       index,
                       GError    **error)
{
  JsonObject *step;
  const QfStepInfo *info;
  g_autofree char *now = now_iso8601 ();

  g_return_val_if_fail (QF_IS_SESSION (self), FALSE);
  g_return_val_if_fail (index < qf_session_get_n_steps (self), FALSE);

  step = qf_session_get_step (self, index);
  reset_step (step);
  json_object_set_string_member (step, "status", "running");
  json_object_set_string_member (step, "started_at", now);
  info = qf_step_lookup (qf_json_get_string (step, "test", ""));
  if (info != NULL && info->classic_command != NULL)
    {
      g_autofree char *classic = info->classic_command (qf_json_get_object (step, "params"),
                                                        qf_session_get_peer_address (self));
      qf_json_set_string_or_null (step, "classic_command", classic != NULL && *classic != '\0' ? classic : NULL);
    }
  g_array_set_size (g_ptr_array_index (self->sample_stores, index), 0);
  self->sample_dropped[index] = 0;
  if (g_str_equal (qf_session_get_state (self), "new") || g_str_equal (qf_session_get_state (self), "cancelled"))
    json_object_set_string_member (self->root, "state", "running");
  json_object_set_null_member (self->root, "finished_at");
  return step_changed (self, index, error);
}

static gint
compare_sample_time (gconstpointer a,
                     gconstpointer b)
{
  const QfSample *sa = a, *sb = b;
  return sa->t_ns < sb->t_ns ? -1 : sa->t_ns > sb->t_ns;
}

/* At most MAX_SAVED_SAMPLES: the minimum and maximum of each time slot, in time order, so a
 * replayed plot keeps every spike. */
static JsonObject *
decimate_samples (GArray  *store,
                  guint64  dropped)
{
  JsonObject *obj = json_object_new ();
  JsonArray *t = json_array_new (), *v = json_array_new (), *ch = json_array_new ();
  guint n = store->len;

  if (n <= MAX_SAVED_SAMPLES)
    {
      for (guint i = 0; i < n; i++)
        {
          const QfSample *s = &g_array_index (store, QfSample, i);
          json_array_add_int_element (t, s->t_ns);
          json_array_add_int_element (v, s->value_ns);
          json_array_add_int_element (ch, s->channel);
        }
    }
  else
    {
      guint slots = MAX_SAVED_SAMPLES / 2;
      gint64 t0 = g_array_index (store, QfSample, 0).t_ns;
      gint64 t1 = g_array_index (store, QfSample, n - 1).t_ns;
      gint64 span = MAX (t1 - t0, 1);
      guint i = 0;

      for (guint slot = 0; slot < slots && i < n; slot++)
        {
          gint64 end = t0 + (gint64) ((gdouble) span * (slot + 1) / slots);
          const QfSample *lo = NULL, *hi = NULL;
          QfSample pair[2];
          guint m = 0;

          for (; i < n && (g_array_index (store, QfSample, i).t_ns <= end || slot == slots - 1); i++)
            {
              const QfSample *s = &g_array_index (store, QfSample, i);
              if (lo == NULL || s->value_ns < lo->value_ns)
                lo = s;
              if (hi == NULL || s->value_ns > hi->value_ns)
                hi = s;
            }
          if (lo == NULL)
            continue;
          pair[m++] = *lo;
          if (hi != lo)
            pair[m++] = *hi;
          if (m == 2 && compare_sample_time (&pair[0], &pair[1]) > 0)
            {
              QfSample tmp = pair[0];
              pair[0] = pair[1];
              pair[1] = tmp;
            }
          for (guint k = 0; k < m; k++)
            {
              json_array_add_int_element (t, pair[k].t_ns);
              json_array_add_int_element (v, pair[k].value_ns);
              json_array_add_int_element (ch, pair[k].channel);
            }
        }
    }
  json_object_set_array_member (obj, "t_ns", t);
  json_object_set_array_member (obj, "value_ns", v);
  json_object_set_array_member (obj, "channel", ch);
  json_object_set_int_member (obj, "recorded", n);
  json_object_set_int_member (obj, "dropped", (gint64) dropped);
  return obj;
}

gboolean
qf_session_finish_step (QfSession    *self,
                        guint         index,
                        QfStepStatus  status,
                        JsonObject   *result,
                        gboolean      partial,
                        const GError *step_error,
                        const char   *reason,
                        gdouble       duration_s,
                        GError      **error)
{
  JsonObject *step;
  g_autofree char *now = now_iso8601 ();
  GArray *store;

  g_return_val_if_fail (QF_IS_SESSION (self), FALSE);
  g_return_val_if_fail (index < qf_session_get_n_steps (self), FALSE);

  step = qf_session_get_step (self, index);
  json_object_set_string_member (step, "status", qf_step_status_to_string (status));
  qf_json_set_string_or_null (step, "status_reason", reason);
  if (status == QF_STEP_STATUS_SKIPPED || status == QF_STEP_STATUS_NOT_RUN)
    {
      if (json_object_get_null_member (step, "started_at"))
        json_object_set_null_member (step, "finished_at");
      else
        json_object_set_string_member (step, "finished_at", now);
    }
  else
    json_object_set_string_member (step, "finished_at", now);
  if (duration_s >= 0 && status != QF_STEP_STATUS_NOT_RUN)
    json_object_set_double_member (step, "duration_s", duration_s);
  else
    json_object_set_null_member (step, "duration_s");
  if (step_error != NULL)
    {
      JsonObject *err = json_object_new ();
      json_object_set_string_member (err, "domain", g_quark_to_string (step_error->domain));
      json_object_set_int_member (err, "code", step_error->code);
      json_object_set_string_member (err, "message", step_error->message);
      json_object_set_object_member (step, "error", err);
    }
  else
    json_object_set_null_member (step, "error");
  if (result != NULL)
    json_object_set_object_member (step, "result", qf_json_object_deep_copy (result));
  else
    json_object_set_null_member (step, "result");
  json_object_set_boolean_member (step, "partial", result != NULL && partial);

  store = g_ptr_array_index (self->sample_stores, index);
  if (store->len > 0 || self->sample_dropped[index] > 0)
    json_object_set_object_member (step, "samples", decimate_samples (store, self->sample_dropped[index]));
  g_array_set_size (store, 0);

  /* elapsed_s: monotonic time spent in steps, summed. */
  {
    gdouble elapsed = 0;
    for (guint i = 0; i < qf_session_get_n_steps (self); i++)
      elapsed += qf_json_get_double (qf_session_get_step (self, i), "duration_s", 0);
    json_object_set_double_member (self->root, "elapsed_s", elapsed);
  }
  return step_changed (self, index, error);
}

/* Appends point to list, first halving the list when it holds MAX_SAVED_POINTS. */
static void
append_thinned (JsonArray *list,
                JsonArray *point)
{
  guint n = json_array_get_length (list);

  if (n >= MAX_SAVED_POINTS)
    {
      /* Remove the odd entries below the last one, from the end backwards. */
      gint last_odd = (gint) n - 2;

      if (last_odd % 2 == 0)
        last_odd--;
      for (gint i = last_odd; i >= 1; i -= 2)
        json_array_remove_element (list, (guint) i);
    }
  json_array_add_array_element (list, point);
}

void
qf_session_record_progress (QfSession  *self,
                            guint       index,
                            gdouble     t_s,
                            gdouble     fraction,
                            JsonObject *live)
{
  JsonObject *step;
  JsonArray *progress, *live_array, *point;

  g_return_if_fail (QF_IS_SESSION (self));
  g_return_if_fail (index < qf_session_get_n_steps (self));

  step = qf_session_get_step (self, index);
  progress = qf_json_get_array (step, "progress");
  live_array = qf_json_get_array (step, "live");
  if (progress == NULL || live_array == NULL)
    return;
  point = json_array_new ();
  json_array_add_double_element (point, t_s);
  json_array_add_double_element (point, fraction);
  append_thinned (progress, point);
  if (live != NULL)
    {
      point = json_array_new ();
      json_array_add_double_element (point, t_s);
      json_array_add_object_element (point, qf_json_object_deep_copy (live));
      append_thinned (live_array, point);
    }
}

void
qf_session_record_samples (QfSession      *self,
                           guint           index,
                           gint64          step_start_ns,
                           const QfSample *samples,
                           guint           n,
                           guint64         dropped)
{
  GArray *store;

  g_return_if_fail (QF_IS_SESSION (self));
  g_return_if_fail (index < self->sample_stores->len);

  store = g_ptr_array_index (self->sample_stores, index);
  self->sample_dropped[index] = dropped;
  for (guint i = 0; i < n; i++)
    {
      QfSample s = samples[i];

      if (store->len >= MAX_RECORDED_SAMPLES)
        {
          self->sample_dropped[index] += n - i;
          break;
        }
      s.t_ns -= step_start_ns;
      g_array_append_val (store, s);
    }
}

guint
qf_session_prepare_resume (QfSession *self)
{
  guint remaining = 0, kept = 0;
  g_auto(GStrv) only = NULL;

  g_return_val_if_fail (QF_IS_SESSION (self), 0);

  only = qf_session_get_only (self);
  for (guint i = 0; i < qf_session_get_n_steps (self); i++)
    {
      QfStepStatus status = qf_session_get_step_status (self, i);

      if (status == QF_STEP_STATUS_DONE || status == QF_STEP_STATUS_SKIPPED)
        {
          kept++;
          continue;
        }
      reset_step (qf_session_get_step (self, i));
      /* a test the session was not asked to run is left out again (the runner says so) */
      if (only == NULL || g_strv_contains ((const char *const *) only, qf_session_get_step_key (self, i)))
        remaining++;
    }
  if (kept > 0)
    {
      g_autofree char *text =
        g_strdup_printf (qf_ngettext ("This session was resumed after an interruption; %u finished step was kept.",
                                      "This session was resumed after an interruption; %u finished steps were kept.",
                                      kept), kept);
      qf_session_add_note (self, "resumed", text);
    }
  json_object_set_string_member (self->root, "state", kept > 0 ? "running" : "new");
  json_object_set_null_member (self->root, "finished_at");
  qf_session_recompute (self);
  return remaining;
}

gboolean
qf_session_finish (QfSession   *self,
                   gboolean     cancelled,
                   const char  *base_dir,
                   GError     **error)
{
  g_autofree char *now = now_iso8601 ();
  g_autofree char *default_base = NULL;
  g_autoptr(QfSession) previous = NULL;
  gboolean ok;

  g_return_val_if_fail (QF_IS_SESSION (self), FALSE);

  json_object_set_string_member (self->root, "state", cancelled ? "cancelled" : "complete");
  json_object_set_string_member (self->root, "finished_at", now);
  if (base_dir == NULL)
    base_dir = default_base = qf_session_get_default_base ();
  previous = qf_session_find_previous (self, base_dir);
  if (previous != NULL)
    json_object_set_object_member (self->root, "comparison", qf_session_compare (self, previous));
  else
    json_object_set_null_member (self->root, "comparison");
  qf_session_recompute (self);
  ok = qf_session_save (self, error);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return ok;
}

/* ---- verdicts ----------------------------------------------------------------------------- */

static const char *
not_run_reason (JsonObject   *step,
                QfStepStatus  status)
{
  const char *reason = qf_json_get_string (step, "status_reason", NULL);

  if (reason != NULL)
    return reason;
  switch (status)
    {
    case QF_STEP_STATUS_PENDING:
      return _("Not run yet.");
    case QF_STEP_STATUS_RUNNING:
      return _("Still running.");
    case QF_STEP_STATUS_CANCELLED:
      return _("The test was cancelled.");
    case QF_STEP_STATUS_SKIPPED:
      return _("The test was skipped.");
    case QF_STEP_STATUS_FAILED:
      return _("The test could not be completed.");
    case QF_STEP_STATUS_DONE:
    case QF_STEP_STATUS_NOT_RUN:
    default:
      return _("The test was not run.");
    }
}

void
qf_session_recompute (QfSession *self)
{
  g_autoptr(JsonArray) all = json_array_new ();
  gboolean over_link;

  g_return_if_fail (QF_IS_SESSION (self));

  over_link = qf_verdict_session_over_link (self->root);
  for (guint i = 0; i < qf_session_get_n_steps (self); i++)
    {
      JsonObject *step = qf_session_get_step (self, i);
      QfStepStatus status = qf_session_get_step_status (self, i);
      const QfProfileTest *test = qf_profile_find_test (self->profile, qf_json_get_string (step, "key", ""));
      JsonArray *verdicts;

      if (test == NULL)
        verdicts = json_array_new ();
      else
        verdicts = qf_verdict_judge_test (test, status == QF_STEP_STATUS_DONE,
                                          qf_json_get_object (step, "result"),
                                          not_run_reason (step, status));
      if (!over_link && qf_verdict_step_is_network (qf_json_get_string (step, "test", NULL)))
        qf_verdict_mark_not_over_link (verdicts);
      for (guint k = 0; k < json_array_get_length (verdicts); k++)
        json_array_add_element (all, qf_json_node_deep_copy (json_array_get_element (verdicts, k)));
      json_object_set_array_member (step, "verdicts", verdicts);
    }
  json_object_set_object_member (self->root, "verdict", qf_verdict_summary (all));
  json_object_set_array_member (self->root, "advice", qf_advice_build (self->root));
}

QfOverall
qf_session_get_overall (QfSession *self,
                        guint     *warnings)
{
  JsonObject *verdict;
  QfOverall overall = QF_OVERALL_INCOMPLETE;

  g_return_val_if_fail (QF_IS_SESSION (self), QF_OVERALL_INCOMPLETE);

  verdict = qf_json_get_object (self->root, "verdict");
  qf_overall_from_string (qf_json_get_string (verdict, "overall", NULL), &overall);
  if (warnings != NULL)
    *warnings = (guint) qf_json_get_double (verdict, "warnings", 0);
  return overall;
}

JsonArray *
qf_session_get_verdicts (QfSession *self)
{
  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  return qf_json_get_array (qf_json_get_object (self->root, "verdict"), "criteria");
}

JsonArray *
qf_session_get_advice (QfSession *self)
{
  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  return qf_json_get_array (self->root, "advice");
}

/* ---- comparison --------------------------------------------------------------------------- */

gboolean
qf_session_same_pc (QfSession *self,
                    QfSession *other)
{
  JsonObject *a, *b;
  const char *ma, *mb;
  static const char *const keys[] = { "hostname", "dmi_product", "dmi_serial", NULL };

  g_return_val_if_fail (QF_IS_SESSION (self) && QF_IS_SESSION (other), FALSE);

  a = qf_json_get_object (self->root, "pc");
  b = qf_json_get_object (other->root, "pc");
  if (a == NULL || b == NULL)
    return FALSE;
  ma = qf_json_get_string (a, "machine_id_sha256", NULL);
  mb = qf_json_get_string (b, "machine_id_sha256", NULL);
  if (ma != NULL || mb != NULL)
    return g_strcmp0 (ma, mb) == 0;
  for (guint i = 0; keys[i] != NULL; i++)
    if (g_strcmp0 (qf_json_get_string (a, keys[i], NULL), qf_json_get_string (b, keys[i], NULL)) != 0)
      return FALSE;
  return TRUE;
}

static JsonObject *
find_verdict (JsonArray  *verdicts,
              const char *key,
              const char *metric)
{
  for (guint i = 0; verdicts != NULL && i < json_array_get_length (verdicts); i++)
    {
      JsonObject *v = json_array_get_object_element (verdicts, i);
      if (g_strcmp0 (qf_json_get_string (v, "key", NULL), key) == 0 &&
          g_strcmp0 (qf_json_get_string (v, "metric", NULL), metric) == 0)
        return v;
    }
  return NULL;
}

JsonObject *
qf_session_compare (QfSession *self,
                    QfSession *previous)
{
  JsonObject *comparison = json_object_new ();
  JsonObject *prev = json_object_new ();
  JsonArray *metrics = json_array_new ();
  JsonArray *audit_changes = json_array_new ();
  JsonArray *verdicts, *previous_verdicts, *checks, *previous_checks;

  g_return_val_if_fail (QF_IS_SESSION (self) && QF_IS_SESSION (previous), comparison);

  json_object_set_string_member (prev, "id", qf_session_get_id (previous));
  qf_json_set_string_or_null (prev, "dir", previous->dir);
  qf_json_set_string_or_null (prev, "created_at", qf_json_get_string (previous->root, "created_at", NULL));
  json_object_set_string_member (prev, "profile_id", qf_profile_get_id (previous->profile));
  json_object_set_object_member (comparison, "previous", prev);

  verdicts = qf_session_get_verdicts (self);
  previous_verdicts = qf_session_get_verdicts (previous);
  for (guint i = 0; verdicts != NULL && i < json_array_get_length (verdicts); i++)
    {
      JsonObject *v = json_array_get_object_element (verdicts, i);
      JsonObject *pv = find_verdict (previous_verdicts, qf_json_get_string (v, "key", NULL),
                                     qf_json_get_string (v, "metric", NULL));
      JsonNode *after = json_object_get_member (v, "measured");
      JsonNode *before = pv != NULL ? json_object_get_member (pv, "measured") : NULL;
      JsonObject *m;

      if (pv == NULL)
        continue;
      m = json_object_new ();
      json_object_set_string_member (m, "key", qf_json_get_string (v, "key", ""));
      json_object_set_string_member (m, "metric", qf_json_get_string (v, "metric", ""));
      json_object_set_string_member (m, "label", qf_json_get_string (v, "label", ""));
      json_object_set_string_member (m, "unit", qf_json_get_string (v, "unit", ""));
      json_object_set_member (m, "before", before ? json_node_copy (before) : json_node_new (JSON_NODE_NULL));
      json_object_set_member (m, "after", after ? json_node_copy (after) : json_node_new (JSON_NODE_NULL));
      if (before != NULL && after != NULL && !JSON_NODE_HOLDS_NULL (before) && !JSON_NODE_HOLDS_NULL (after))
        json_object_set_double_member (m, "delta", json_node_get_double (after) - json_node_get_double (before));
      else
        json_object_set_null_member (m, "delta");
      json_object_set_string_member (m, "before_verdict", qf_json_get_string (pv, "verdict", ""));
      json_object_set_string_member (m, "after_verdict", qf_json_get_string (v, "verdict", ""));
      json_array_add_object_element (metrics, m);
    }
  json_object_set_array_member (comparison, "metrics", metrics);

  checks = qf_json_get_array (qf_json_get_object (self->root, "audit"), "checks");
  previous_checks = qf_json_get_array (qf_json_get_object (previous->root, "audit"), "checks");
  for (guint i = 0; checks != NULL && i < json_array_get_length (checks); i++)
    {
      JsonObject *c = json_array_get_object_element (checks, i);
      const char *id = qf_json_get_string (c, "id", NULL);

      for (guint k = 0; previous_checks != NULL && k < json_array_get_length (previous_checks); k++)
        {
          JsonObject *pc = json_array_get_object_element (previous_checks, k);
          if (g_strcmp0 (qf_json_get_string (pc, "id", NULL), id) != 0)
            continue;
          if (g_strcmp0 (qf_json_get_string (pc, "value", NULL), qf_json_get_string (c, "value", NULL)) != 0 ||
              g_strcmp0 (qf_json_get_string (pc, "status", NULL), qf_json_get_string (c, "status", NULL)) != 0)
            {
              JsonObject *change = json_object_new ();
              json_object_set_string_member (change, "id", id);
              qf_json_set_string_or_null (change, "title", qf_json_get_string (c, "title", NULL));
              qf_json_set_string_or_null (change, "before", qf_json_get_string (pc, "value", NULL));
              qf_json_set_string_or_null (change, "after", qf_json_get_string (c, "value", NULL));
              qf_json_set_string_or_null (change, "before_status", qf_json_get_string (pc, "status", NULL));
              qf_json_set_string_or_null (change, "after_status", qf_json_get_string (c, "status", NULL));
              json_array_add_object_element (audit_changes, change);
            }
          break;
        }
    }
  json_object_set_array_member (comparison, "audit_changes", audit_changes);
  return comparison;
}

typedef gboolean (*SessionFilter) (QfSession *candidate,
                                   gpointer   user_data);

/* The newest session (by created_at) below base_dir that filter accepts. */
static QfSession *
find_newest (const char    *base_dir,
             SessionFilter  filter,
             gpointer       user_data)
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(QfSession) best = NULL;
  g_autoptr(GDateTime) best_time = NULL;
  const char *name;

  if (base_dir == NULL || (dir = g_dir_open (base_dir, 0, NULL)) == NULL)
    return NULL;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (base_dir, name, "session.json", NULL);
      g_autoptr(QfSession) other = NULL;
      g_autoptr(GDateTime) created = NULL;

      if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
        continue;
      other = qf_session_load (path, NULL);
      if (other == NULL || !filter (other, user_data))
        continue;
      created = g_date_time_new_from_iso8601 (qf_json_get_string (other->root, "created_at", ""), NULL);
      if (created == NULL)
        continue;
      if (best_time == NULL || g_date_time_compare (created, best_time) > 0)
        {
          g_clear_object (&best);
          g_clear_pointer (&best_time, g_date_time_unref);
          best = g_steal_pointer (&other);
          best_time = g_steal_pointer (&created);
        }
    }
  return g_steal_pointer (&best);
}

static gboolean
is_previous_of (QfSession *candidate,
                gpointer   user_data)
{
  QfSession *self = user_data;
  const char *state = qf_session_get_state (candidate);

  return g_strcmp0 (qf_session_get_id (candidate), qf_session_get_id (self)) != 0 &&
         (g_str_equal (state, "complete") || g_str_equal (state, "cancelled")) &&
         qf_session_same_pc (self, candidate);
}

static gboolean
is_unfinished (QfSession *candidate,
               gpointer   user_data)
{
  const char *state = qf_session_get_state (candidate);

  return g_str_equal (state, "running") || g_str_equal (state, "cancelled");
}

QfSession *
qf_session_find_unfinished (const char *base_dir)
{
  g_autofree char *default_base = NULL;

  if (base_dir == NULL)
    base_dir = default_base = qf_session_get_default_base ();
  return find_newest (base_dir, is_unfinished, NULL);
}

QfSession *
qf_session_find_previous (QfSession  *self,
                          const char *base_dir)
{
  g_return_val_if_fail (QF_IS_SESSION (self), NULL);
  return find_newest (base_dir, is_previous_of, self);
}
