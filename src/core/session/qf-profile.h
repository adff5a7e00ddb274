/* qf-profile.h — threshold profiles: which tests to run, with which parameters, judged against
 * which limits (src/core).
 *
 * A profile is a JSON file, shipped in data/profiles/ or the user's in
 * $XDG_CONFIG_HOME/qualify/profiles/ (a user profile with a shipped id replaces it):
 *
 *   {
 *     "id": "arcs-wired",                      lower-case letters, digits, '-'
 *     "version": 1,                            whole number >= 1
 *     "name": "ARCS controller, wired network",  translated through gettext when shown
 *     "description": "…",
 *     "network_kind": "wired",                 "wired", "wireless" or "any"
 *     "quick_variant": "arcs-wired-quick",     optional: what `--quick` runs instead
 *     "note": "…",                             optional: printed in the session and report
 *     "tests": {                               in the order they run
 *       "rt": {                                key: lower-case letters, digits, '_', '-'
 *         "step": "rt",                        optional, default = the key (qf_step_lookup id)
 *         "title": "…",                        optional, default = the step's title
 *         "params": { … },                     passed to the step unchanged (optional)
 *         "criteria": [                        may be empty (the test is then informative)
 *           { "metric": "avg_us",              key path into the step's result JSON
 *             "label": "Average latency",
 *             "comparison": "<=",              "<=" or ">="; equal to the limit passes
 *             "limit": 32, "unit": "µs",
 *             "role": "decides" }              "decides" or "warns"
 *         ] } } }
 *
 * Loading validates everything; an unknown key is an error. Messages name the file, the key
 * path and what was expected: "arcs-lab.json: tests.rt.criteria[0].limit: expected a number,
 * got \"32us\"". Profiles are immutable once loaded and may be shared between threads. */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define QF_PROFILE_ERROR (qf_profile_error_quark ())
GQuark qf_profile_error_quark (void);

typedef enum
{
  QF_PROFILE_ERROR_READ,       /* the file cannot be read */
  QF_PROFILE_ERROR_SYNTAX,     /* not JSON */
  QF_PROFILE_ERROR_INVALID,    /* JSON, but not a valid profile */
  QF_PROFILE_ERROR_NOT_FOUND,  /* no profile with that id */
} QfProfileError;

typedef enum
{
  QF_COMPARISON_AT_MOST,       /* "<=" */
  QF_COMPARISON_AT_LEAST,      /* ">=" */
} QfComparison;

typedef enum
{
  QF_ROLE_DECIDES,
  QF_ROLE_WARNS,
} QfCriterionRole;

typedef struct
{
  char            *metric;
  char            *label;
  QfComparison     comparison;
  gdouble          limit;
  char            *unit;
  QfCriterionRole  role;
} QfCriterion;

typedef struct
{
  char       *key;
  char       *step;
  char       *title;     /* NULL: use the step's title */
  JsonObject *params;    /* never NULL */
  GPtrArray  *criteria;  /* element-type QfCriterion */
} QfProfileTest;

#define QF_TYPE_PROFILE (qf_profile_get_type ())
G_DECLARE_FINAL_TYPE (QfProfile, qf_profile, QF, PROFILE, GObject)

QfProfile           *qf_profile_load_file        (const char    *path,
                                                  GError       **error);
/* display_name names the file in messages. */
QfProfile           *qf_profile_load_data        (const char    *data,
                                                  gssize         length,
                                                  const char    *display_name,
                                                  GError       **error);

const char          *qf_profile_get_id           (QfProfile     *self);
gint64               qf_profile_get_version      (QfProfile     *self);
/* Translated. */
const char          *qf_profile_get_name         (QfProfile     *self);
const char          *qf_profile_get_description  (QfProfile     *self);
const char          *qf_profile_get_note         (QfProfile     *self);
const char          *qf_profile_get_network_kind (QfProfile     *self);
const char          *qf_profile_get_quick_variant (QfProfile    *self);
/* File it came from, or NULL. */
const char          *qf_profile_get_source       (QfProfile     *self);
/* TRUE for a file in the user's profile directory. */
gboolean             qf_profile_is_user          (QfProfile     *self);
guint                qf_profile_get_n_tests      (QfProfile     *self);
const QfProfileTest *qf_profile_get_test         (QfProfile     *self,
                                                  guint          index);
const QfProfileTest *qf_profile_find_test        (QfProfile     *self,
                                                  const char    *key);
/* The profile a session was run with, rebuilt from the copy its "profile" member holds (id,
 * version, name, description, network_kind and tests: the limits it was judged against) and
 * checked as strictly as a profile file; display_name names the session in messages. */
QfProfile           *qf_profile_from_session     (JsonObject    *stored,
                                                  const char    *display_name,
                                                  GError       **error);
/* The profile's JSON as loaded (a deep copy). */
JsonObject          *qf_profile_to_json          (QfProfile     *self);

/* Directories searched, shipped first: datadir/profiles, $XDG_CONFIG_HOME/qualify/profiles. */
char               **qf_profile_get_dirs         (void);
/* Every loadable profile, sorted by id; a user profile replaces a shipped one of the same id.
 * Broken files are left out and, when errors is not NULL, their messages (char *) added to it. */
GPtrArray           *qf_profile_list             (GPtrArray     *errors);
/* The profile called id (a path to a .json file works too). */
QfProfile           *qf_profile_find             (const char    *id,
                                                  GError       **error);

const char          *qf_comparison_to_string     (QfComparison   comparison);
const char          *qf_role_to_string           (QfCriterionRole role);

G_END_DECLS
