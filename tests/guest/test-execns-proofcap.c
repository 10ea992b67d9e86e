// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/execns/proof's report is bounded: a kernel with many more callers
 * than the ones tested would fill its buffer, and the report must then
 * keep whole lines, say how many it dropped, and still end in the verdict,
 * without reading or writing past the buffer (the debug row's KASAN would
 * report that in the kernel log the runner checks).  The module is
 * reloaded with proof_report_max (module/fault.c), a smaller capacity,
 * and then reloaded as the runner loaded it.
 */
#include "lib/test.h"

/*
 * The capacity tried: 600 bytes, or half the report where it is shorter
 * than twice that (a kernel whose proof stops at its first checks, as on
 * one whose symbol table cannot be read).
 */
#define CAP_MAX	600
static ssize_t cap = CAP_MAX;

static char full[16384], capped[16384];

static const char *last_line(char *buf)
{
	size_t n = strlen(buf);
	char *p;

	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	p = strrchr(buf, '\n');
	return p ? p + 1 : buf;
}

/* Every line is a whole report line: a check, the window, the note or the verdict. */
static int whole_lines(const char *buf)
{
	char copy[16384], *line, *save;

	snprintf(copy, sizeof(copy), "%s", buf);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!execns_after(line, EXECNS_PROOF_OK) && !execns_after(line, EXECNS_PROOF_FAIL) &&
		    !execns_after(line, EXECNS_PROOF_WINDOW) &&
		    !execns_after(line, EXECNS_PROOF_TRUNCATED) &&
		    !execns_after(line, EXECNS_PROOF_VERDICT))
			return 0;
	return 1;
}

int main(void)
{
	char verdict[64], opt[32];
	ssize_t nfull, ncapped;
	int rm, ins, rm2, ins2;

	test_start(5, 0);
	nfull = read_text(EXECNS_PROC_PROOF, full, sizeof(full));
	if (nfull > 0 && nfull < 2 * CAP_MAX)
		cap = nfull / 2;
	snprintf(verdict, sizeof(verdict), "%s", nfull > 0 ? last_line(full) : "");
	ut_wait_tables(0, UT_RCU_SECS);
	rm = execns_rmmod(10);
	snprintf(opt, sizeof(opt), "proof_report_max=%zd", cap);
	ins = rm ? -1 : execns_insmod(opt);
	ksft_test_result(nfull > cap && !rm && !ins,
			 "the module reloads with %s (its full report: %zd bytes, %s; rmmod errno %d, insmod errno %d)",
			 opt, nfull, verdict, rm, ins);
	ncapped = ins ? -1 : read_text(EXECNS_PROC_PROOF, capped, sizeof(capped));
	ksft_test_result(ncapped > 0 && ncapped <= cap + 160 && strstr(capped, "\n" EXECNS_PROOF_TRUNCATED " ") &&
			 whole_lines(capped),
			 "the capped report keeps whole lines and says how many it dropped (%zd bytes)", ncapped);
	ksft_test_result(ncapped > 0 && !strcmp(last_line(capped), verdict),
			 "and still ends in the verdict: \"%s\"", ncapped > 0 ? last_line(capped) : "");
	rm2 = execns_rmmod(10);
	ins2 = rm2 ? -1 : execns_insmod("");
	ksft_test_result(!rm2 && !ins2, "reloaded as the runner loaded it (rmmod errno %d, insmod errno %d)",
			 rm2, ins2);
	nfull = read_text(EXECNS_PROC_PROOF, full, sizeof(full));
	ksft_test_result(nfull > cap && !strstr(full, EXECNS_PROOF_TRUNCATED " ") && whole_lines(full),
			 "its report is whole again (%zd bytes, no truncation line)", nfull);
	ksft_finished();
}
