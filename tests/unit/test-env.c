/*
 * tests/unit/test-env.c — the secret scrub (profile/env.c, tables.c):
 * which names go, which stay, --keep-env and --ssh-agent exceptions, and
 * that values are never reported.
 */
#include <stdlib.h>
#include <string.h>

#include "../../policy/policy.h"
#include "tap.h"

static const struct {
	const char *name;
	int secret;
} cases[] = {
	{ "AWS_SECRET_ACCESS_KEY", 1 }, { "AWS_PROFILE", 1 },
	{ "aws_access_key_id", 1 },     { "GITHUB_TOKEN", 1 },
	{ "GH_TOKEN", 1 },              { "GH_HOST", 1 },
	{ "GITHUB_WORKSPACE", 0 },      { "GITHUB_SHA", 0 },
	{ "GITHUB_ENTERPRISE_TOKEN", 1 }, { "AZURE_CLIENT_SECRET", 1 },
	{ "AZURE_TENANT_ID", 1 },       { "GOOGLE_APPLICATION_CREDENTIALS", 1 },
	{ "NPM_TOKEN", 1 },             { "MY_SERVICE_TOKEN", 1 },
	{ "OPENAI_API_KEY", 1 },        { "ANTHROPIC_API_KEY", 1 },
	{ "STRIPE_SECRET", 1 },         { "APP_SECRETS", 1 },
	{ "DB_PASSWORD", 1 },           { "MYSQL_PASSWD", 1 },
	{ "GIT_CREDENTIAL", 1 },        { "DOCKER_CREDENTIALS", 1 },
	{ "REGISTRY_AUTH", 1 },         { "SSH_AUTH_SOCK", 1 },
	{ "SSH_AGENT_PID", 1 },         { "my_service_token", 1 },
	{ "TOKEN", 1 },                 { "PASSWORD", 1 },
	{ "PATH", 0 },                  { "HOME", 0 },
	{ "LANG", 0 },                  { "TERM", 0 },
	{ "KEYBOARD", 0 },              { "TOKENIZER_PATH", 0 },
	{ "XAUTHORITY", 0 },            { "PASSWORD_STORE_DIR", 0 },
	{ "SSH_CONNECTION", 0 },        { "GITHUBX", 0 },
	{ "MONKEY", 0 },                { "AUTHOR", 0 },
	{ "KINBOX_SESSION", 0 },        { "", 0 },
};

int
main(void)
{
	struct kb_policy p;
	struct kb_strv out = { 0 }, removed = { 0 };
	struct kb_err e;
	char a[] = "PATH=/bin", b[] = "NPM_TOKEN=s3cr3t", c[] = "KEEP_TOKEN=k",
	     d[] = "SSH_AUTH_SOCK=/run/a", f[] = "NOEQUALS";
	char *envp[] = { a, b, c, d, f, NULL };
	bool leaked = false;

	for (size_t i = 0; i < nitems(cases); i++)
		assert_cmpint(kb_env_is_secret(cases[i].name,
				  strlen(cases[i].name)),
		    cases[i].secret, "%s is %s", cases[i].name,
		    cases[i].secret ? "scrubbed" : "kept");

	kb_policy_init(&p);
	ok(kb_policy_add_keep_env(&p, "KEEP_TOKEN", &e) == 0, "--keep-env KEEP_TOKEN");
	ok(kb_policy_add_keep_env(&p, "A=B", &e) == -1, "--keep-env A=B is refused");
	kb_env_scrub(&p, envp, &out, &removed);
	assert_cmpint(out.n, 3, "three variables pass");
	assert_cmpstr(out.v[0], "PATH=/bin", "PATH passes");
	assert_cmpstr(out.v[1], "KEEP_TOKEN=k", "a kept secret passes");
	assert_cmpstr(out.v[2], "NOEQUALS", "a malformed entry passes unchanged");
	assert_cmpint(removed.n, 2, "two removed");
	assert_cmpstr(removed.v[0], "NPM_TOKEN", "removed names, not values");
	for (size_t i = 0; i < removed.n; i++)
		if (strstr(removed.v[i], "s3cr3t") != NULL)
			leaked = true;
	ok(!leaked, "no value in the removed list");
	kb_strv_free(&out);
	kb_strv_free(&removed);

	p.ssh_agent = true;
	kb_env_scrub(&p, envp, &out, NULL);
	ok(out.n == 4 && strcmp(out.v[2], "SSH_AUTH_SOCK=/run/a") == 0,
	    "--ssh-agent keeps SSH_AUTH_SOCK");
	kb_strv_free(&out);
	kb_policy_free(&p);
	return tap_done();
}
