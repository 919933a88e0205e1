/*
 * tests/unit/test-env.c — the secret scrub (profile/env.c, tables.c):
 * which names go, which stay, --keep-env and --ssh-agent exceptions, and
 * that values are never reported.
 */
#include <stdlib.h>
#include <string.h>

#include "../../profile/policy.h"
#include "tap.h"

static const struct {
	const char *name;
	int secret;
} cases[] = {
	{ "AWS_SECRET_ACCESS_KEY", 1 }, { "AWS_PROFILE", 0 },
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
	/* a region, a profile, a CA path: kept, unless a secret word is in
	 * the name anywhere */
	{ "AWS_REGION", 0 },            { "AWS_DEFAULT_REGION", 0 },
	{ "aws_default_profile", 0 },   { "AWS_CA_BUNDLE", 0 },
	{ "AZURE_CA_FILE", 0 },         { "GH_REGION", 0 },
	{ "AWS_SESSION_TOKEN", 1 },     { "AWS_ACCESS_KEY_ID", 1 },
	{ "AWS_SESSION_TOKEN_REGION", 1 }, { "AWS_KEY_PROFILE", 1 },
	{ "AWS_SECRET_CA_BUNDLE", 1 },  { "GH_AUTH_PROFILE", 1 },
	{ "AWS_PASSPHRASE_CA_FILE", 1 }, { "AWS_CREDENTIAL_REGION", 1 },
	{ "AWS_CONFIG_FILE", 1 },       { "AWS_SHARED_CREDENTIALS_FILE", 1 },
	{ "AWS_REGIONS", 1 },           { "AWS_PROFILE_NAME", 1 },
	{ "_REGION", 0 },               { "AWS_PASSWORD_REGION", 1 },
	{ "AWS_TOKEN_CA_FILE", 1 },
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

	/* the benign endings lift the table only: a scrub_env pattern the
	 * user wrote still removes AWS_REGION */
	{
		char r[] = "AWS_REGION=eu-west-1", k[] = "AWS_SESSION_TOKEN=t",
		     ca[] = "AWS_CA_BUNDLE=/etc/ssl/ca.pem";
		char *aws[] = { r, k, ca, NULL };

		kb_policy_init(&p);
		kb_env_scrub(&p, aws, &out, &removed);
		ok(out.n == 2 && strcmp(out.v[0], r) == 0 &&
		    strcmp(out.v[1], ca) == 0 && removed.n == 1 &&
		    strcmp(removed.v[0], "AWS_SESSION_TOKEN") == 0,
		    "AWS_REGION and AWS_CA_BUNDLE pass, AWS_SESSION_TOKEN "
		    "beside them does not");
		kb_strv_free(&out);
		kb_strv_free(&removed);
		kb_strv_push(&p.scrub_env, "aws_*");
		kb_env_scrub(&p, aws, &out, &removed);
		ok(out.n == 0 && removed.n == 3,
		    "scrub_env = aws_* removes all three");
		kb_strv_free(&out);
		kb_strv_free(&removed);
		kb_policy_free(&p);
	}
	return tap_done();
}
