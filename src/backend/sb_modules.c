/*
 * sb_modules.c
 *		Module lists in the backend: which preloaded modules a call's code
 *		names, and whether two lists preload the same modules.
 *
 * pysandbox.preload_modules is parsed by sb_split_modules (sb_guc.c); the
 * worker reports what it preloaded (SbReady.preloaded) and sb_worker.c
 * asks these questions of both.  Nothing here runs Python or reads more
 * than the code's text: a word in a comment counts as a use.
 */
#include "pysandbox.h"

#include <ctype.h>

#include "lib/stringinfo.h"
#include "nodes/pg_list.h"

static int
sb_cmp_names(const ListCell *a, const ListCell *b)
{
	return strcmp((const char *) lfirst(a), (const char *) lfirst(b));
}

/*
 * A module list's names sorted and without repeats, joined by commas:
 * " scipy,sklearn" and "sklearn, scipy, scipy" preload the same.
 */
static char *
sb_module_set(const char *list)
{
	List	   *names = NIL;
	ListCell   *lc;
	StringInfoData out;
	const char *last = NULL;

	initStringInfo(&out);
	if (!sb_split_modules(list ? list : "", &names))
	{
		appendStringInfoString(&out, list);	/* checked when set: not here */
		return out.data;
	}
	list_sort(names, sb_cmp_names);
	foreach(lc, names)
	{
		const char *name = (const char *) lfirst(lc);

		if (last == NULL || strcmp(last, name) != 0)
			appendStringInfo(&out, "%s%s", out.len > 0 ? "," : "", name);
		last = name;
	}
	list_free_deep(names);
	return out.data;
}

/* Does code hold word, not as part of a longer identifier? */
static bool
sb_code_has_word(const char *code, const char *word, size_t len)
{
	const char *p = code;

#define SB_IDENT_CHAR(c) (isalnum((unsigned char) (c)) || (c) == '_' || ((unsigned char) (c)) >= 0x80)
	while (len > 0 && (p = strstr(p, word)) != NULL)
	{
		if ((p == code || !SB_IDENT_CHAR(p[-1])) && !SB_IDENT_CHAR(p[len]))
			return true;
		p++;
	}
#undef SB_IDENT_CHAR
	return false;
}

/*
 * pandas methods and arguments that import scipy on demand: interpolation
 * methods, window types, rank correlations of a Series, sparse matrices.
 */
static const char *const sb_scipy_users[] = {
	"interpolate", "akima", "pchip", "krogh", "barycentric", "cubicspline",
	"spline", "polynomial", "from_derivatives", "piecewise_polynomial",
	"slinear", "quadratic", "cubic", "nearest", "zero", "win_type", "kendall",
	"spearman", "from_spmatrix", "to_coo", "from_coo",
};

/*
 * pandas methods that import matplotlib by themselves (its plotting), for
 * an administrator who moves matplotlib to pysandbox.preload_modules.
 */
static const char *const sb_matplotlib_users[] = {
	"plot", "hist", "boxplot", "plotting", "scatter_matrix", "autocorrelation_plot",
	"lag_plot", "parallel_coordinates", "andrews_curves", "radviz", "bootstrap_plot",
};

/*
 * Should a call with this code get a child of the worker's preloaded
 * process, which holds pysandbox.preload_modules (the worker's own
 * children do not: every fork of a larger process costs more)?  Yes if the
 * code names one of the packages of modules, the list the worker preloaded
 * (an import must), or, with scipy or matplotlib, uses a pandas feature
 * that imports it by itself.  A word in a comment or a string counts too:
 * that call only forks from the larger process.  Code that reaches a
 * preloaded module some other way is told to name it.
 */
bool
sb_code_names_modules(const char *code, const char *modules)
{
	const char *p = modules;

	while (code != NULL && *p)
	{
		size_t		len = strcspn(p, ",.");
		char		top[NAMEDATALEN];

		if (len > 0 && len < sizeof(top))
		{
			memcpy(top, p, len);
			top[len] = '\0';
			if (sb_code_has_word(code, top, len))
				return true;
			if (strcmp(top, "scipy") == 0)
			{
				int			i;

				for (i = 0; i < lengthof(sb_scipy_users); i++)
					if (sb_code_has_word(code, sb_scipy_users[i], strlen(sb_scipy_users[i])))
						return true;
			}
			if (strcmp(top, "matplotlib") == 0)
			{
				int			i;

				for (i = 0; i < lengthof(sb_matplotlib_users); i++)
					if (sb_code_has_word(code, sb_matplotlib_users[i],
										 strlen(sb_matplotlib_users[i])))
						return true;
			}
		}
		p += strcspn(p, ",");
		p += strspn(p, ", ");
	}
	return false;
}

/*
 * Do two module lists preload different modules?  Compared as sets of
 * names: " scipy,sklearn" and "sklearn, scipy, scipy" are the same.
 */
bool
sb_module_lists_differ(const char *a, const char *b)
{
	return strcmp(sb_module_set(a), sb_module_set(b)) != 0;
}
