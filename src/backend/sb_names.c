/*
 * sb_names.c
 *		The names a table that does not exist may mean, for the hint of a
 *		query's "relation does not exist" ($table, $query, sql()): close
 *		ones by edit distance in search_path, in the schema named, or with
 *		their schema in the other schemas the role may use.
 */
#include "pysandbox.h"

#include "access/genam.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/catalog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parser.h"
#include "parser/scanner.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/varlena.h"

/*
 * The names of tables and views close to a missing one (at most three, the
 * closest first, by edit distance, then those that hold it or that it
 * holds), as "orders", "shop.order_items": those
 * of the schema named; else those visible without a schema, and with their
 * schema those of the other schemas the role may use (a model forgets the
 * schema).  NULL if none.
 */
static char *
sb_similar_relations(RangeVar *rv)
{
	Oid			nsp = InvalidOid;
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	const char *best[3] = {NULL, NULL, NULL};
	int			dist[3] = {0, 0, 0};
	int			len = strlen(rv->relname);
	int			most = Max(2, len / 3);
	StringInfoData buf;

	if (rv->schemaname != NULL)
	{
		nsp = get_namespace_oid(rv->schemaname, true);
		if (!OidIsValid(nsp))
			return NULL;
	}
	rel = table_open(RelationRelationId, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_class c = (Form_pg_class) GETSTRUCT(tup);
		const char *name = NameStr(c->relname);
		bool		qualify = false;
		int			d;

		if (c->relkind != RELKIND_RELATION && c->relkind != RELKIND_VIEW &&
			c->relkind != RELKIND_MATVIEW && c->relkind != RELKIND_PARTITIONED_TABLE &&
			c->relkind != RELKIND_FOREIGN_TABLE)
			continue;
		if (OidIsValid(nsp) && c->relnamespace != nsp)
			continue;
		/* the cheap test first: the lookups below fill the caches */
		d = varstr_levenshtein_less_equal(rv->relname, len, name, strlen(name),
										  1, 1, 1, most + 1, true);
		/*
		 * a name that holds the missing one, or is held by it, counts as
		 * the least close ("sales": sales_2024, daily_sales; review 123 F5)
		 */
		if (d > most)
		{
			size_t		nlen = strlen(name);

			/* the shorter name at least 4 characters: "log" holds little */
			if ((len < nlen ? len : (int) nlen) < 4 ||
				(strstr(name, rv->relname) == NULL && strstr(rv->relname, name) == NULL))
				continue;
			/* one that begins with the other before one that holds it elsewhere */
			d = most + 1 + (strncmp(name, rv->relname, Min((size_t) len, nlen)) == 0 ? 0 : 1);
			if (best[2] != NULL && d > dist[2])
				continue;		/* cannot be among the three */
		}
		if (!OidIsValid(nsp) && !RelationIsVisible(c->oid))
		{
			if (IsCatalogNamespace(c->relnamespace) || isAnyTempNamespace(c->relnamespace) ||
				IsToastNamespace(c->relnamespace) ||
				c->relnamespace == get_namespace_oid("information_schema", true) ||
				pg_namespace_aclcheck(c->relnamespace, GetUserId(), ACL_USAGE) != ACLCHECK_OK)
				continue;
			qualify = true;
		}
		name = qualify || OidIsValid(nsp) ?
			quote_qualified_identifier(get_namespace_name(c->relnamespace), name) :
			quote_identifier(name);
		/* ties by name, not by the catalog's order */
		for (int k = 0; k < 3; k++)
			if (best[k] == NULL || d < dist[k] || (d == dist[k] && strcmp(name, best[k]) < 0))
			{
				for (int m = 2; m > k; m--)
				{
					best[m] = best[m - 1];
					dist[m] = dist[m - 1];
				}
				best[k] = pstrdup(name);
				dist[k] = d;
				break;
			}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (best[0] == NULL)
		return NULL;
	initStringInfo(&buf);
	/*
	 * as SQL writes them (shop.orders, "Odd Schema"."Mixed Case"), a plain
	 * name in quotes as messages quote names ("orders")
	 */
	for (int k = 0; k < 3 && best[k] != NULL; k++)
		appendStringInfo(&buf, strpbrk(best[k], ".\"") ? "%s%s" : "%s\"%s\"",
						 k > 0 ? ", " : "", best[k]);
	return buf.data;
}

/*
 * The byte offset in query of an error's position (1-based, in characters,
 * as PostgreSQL reports it), or -1 past the end: computed once, where a
 * count from the start for each node of a long query was quadratic and
 * deaf to cancel (review 174 F1: 39 s on a 500 kB query).
 */
static int
sb_position_offset(const char *query, int cursorpos)
{
	int			offset = 0;

	for (int chars = 1; chars < cursorpos; chars++)
	{
		if (query[offset] == '\0')
			return -1;
		offset += pg_mblen(query + offset);
	}
	return offset;
}

typedef struct SbMissing
{
	int			offset;			/* the error's position in bytes: the missing table's */
	char	   *similar;		/* what was found for it */
} SbMissing;

/* Walk a raw parse tree for the table the error names (sb_missing_hint). */
static bool
sb_missing_walker(Node *node, void *context)
{
	SbMissing  *m = (SbMissing *) context;

	if (node == NULL || m->similar != NULL)
		return false;
	CHECK_FOR_INTERRUPTS();
	if (IsA(node, RangeVar))
	{
		RangeVar   *rv = (RangeVar *) node;

		/* the parser points its error at the table (1-based, in characters) */
		if (rv->location >= 0 && rv->location == m->offset &&
			!OidIsValid(RangeVarGetRelid(rv, NoLock, true)))
			m->similar = sb_similar_relations(rv);
		return false;
	}
	return raw_expression_tree_walker(node, sb_missing_walker, context);
}

/*
 * The names a missing table of query may mean, for the hint of its
 * "relation does not exist" (review 79: $table and $query said no more),
 * or NULL.
 */
char *
sb_missing_hint(const char *query, int cursorpos)
{
	SbMissing	m = {sb_position_offset(query, cursorpos), NULL};
	List	   *stmts = raw_parser(query, RAW_PARSE_DEFAULT);
	ListCell   *lc;

	foreach(lc, stmts)
	{
		Node	   *stmt = lfirst_node(RawStmt, lc)->stmt;

		/* the walker knows expressions and SELECT's clauses, not EXPLAIN's */
		if (IsA(stmt, SelectStmt))
			sb_missing_walker(stmt, &m);
	}
	return m.similar;
}

/* the most relations, and columns of each, a column hint names */
#define SB_HINT_RELATIONS	4
#define SB_HINT_COLUMNS		40

typedef struct SbColumns
{
	int			offset;			/* the error's position in bytes: the missing column's */
	const char *qualifier;		/* o of o.amount, the column the error names */
	List	   *ctes;			/* the names of WITH's queries (String nodes) */
	List	   *relations;		/* RangeVars of the statement */
} SbColumns;

/* Walk a raw parse tree for its tables and the column the error names. */
static bool
sb_columns_walker(Node *node, void *context)
{
	SbColumns  *c = (SbColumns *) context;

	if (node == NULL)
		return false;
	CHECK_FOR_INTERRUPTS();
	if (IsA(node, RangeVar))
	{
		if (list_length(c->relations) < 64)
			c->relations = lappend(c->relations, node);
		return false;
	}
	if (IsA(node, CommonTableExpr) && list_length(c->ctes) < 64)
		c->ctes = lappend(c->ctes, makeString(((CommonTableExpr *) node)->ctename));
	if (IsA(node, ColumnRef))
	{
		ColumnRef  *ref = (ColumnRef *) node;

		if (ref->location >= 0 && ref->location == c->offset &&
			list_length(ref->fields) == 2 && IsA(linitial(ref->fields), String))
			c->qualifier = strVal(linitial(ref->fields));
		return false;
	}
	return raw_expression_tree_walker(node, sb_columns_walker, context);
}

/*
 * The columns of the tables a query reads, for the hint of its "column
 * does not exist" where PostgreSQL has none ($query, sql(): review 172 F3,
 * a model had to guess, where a DataFrame's missing column lists them):
 * "shop.orders (o) has the columns id, customer_id, ...", of the table
 * the column's qualifier names if it has one; only tables the role may
 * read, and of those the columns it may read.  NULL if none.
 */
char *
sb_columns_hint(const char *query, int cursorpos)
{
	SbColumns	c = {sb_position_offset(query, cursorpos), NULL, NIL, NIL};
	List	   *stmts = raw_parser(query, RAW_PARSE_DEFAULT);
	ListCell   *lc;
	StringInfoData buf;
	int			shown = 0;

	foreach(lc, stmts)
	{
		Node	   *stmt = lfirst_node(RawStmt, lc)->stmt;

		/* the walker knows expressions and SELECT's clauses, not EXPLAIN's */
		if (IsA(stmt, SelectStmt))
			sb_columns_walker(stmt, &c);
	}
	initStringInfo(&buf);
	foreach(lc, c.relations)
	{
		RangeVar   *rv = lfirst_node(RangeVar, lc);
		Oid			relid;
		bool		all;
		Relation	rel;
		TupleDesc	desc;
		int			n = 0;
		int			listed = 0;

		if (shown >= SB_HINT_RELATIONS)
			break;
		if (rv->schemaname == NULL && list_member(c.ctes, makeString(rv->relname)))
			continue;			/* a WITH query's name */
		if (c.qualifier != NULL &&
			strcmp(rv->alias != NULL ? rv->alias->aliasname : rv->relname, c.qualifier) != 0)
			continue;
		if (rv->schemaname != NULL)
		{
			/* (RangeVarGetRelid raises for a schema the role may not use) */
			Oid			nsp = get_namespace_oid(rv->schemaname, true);

			if (!OidIsValid(nsp) ||
				pg_namespace_aclcheck(nsp, GetUserId(), ACL_USAGE) != ACLCHECK_OK)
				continue;
		}
		relid = RangeVarGetRelid(rv, NoLock, true);
		if (!OidIsValid(relid))
			continue;
		all = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
		if (!all && pg_attribute_aclcheck_all(relid, GetUserId(), ACL_SELECT,
											  ACLMASK_ANY) != ACLCHECK_OK)
			continue;
		rel = try_relation_open(relid, AccessShareLock);
		if (rel == NULL)
			continue;
		desc = RelationGetDescr(rel);
		appendStringInfo(&buf, "%s%s", shown > 0 ? "; " : "",
						 rv->schemaname != NULL ?
						 quote_qualified_identifier(rv->schemaname, rv->relname) :
						 quote_identifier(rv->relname));
		if (rv->alias != NULL)
			appendStringInfo(&buf, " (%s)", quote_identifier(rv->alias->aliasname));
		appendStringInfoString(&buf, " has the columns");
		for (int i = 0; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			if (att->attisdropped ||
				(!all && pg_attribute_aclcheck(relid, att->attnum, GetUserId(),
											   ACL_SELECT) != ACLCHECK_OK))
				continue;
			if (listed < SB_HINT_COLUMNS)
			{
				appendStringInfo(&buf, "%s %s", listed > 0 ? "," : "",
								 quote_identifier(NameStr(att->attname)));
				listed++;
			}
			n++;
		}
		if (n > listed)
			appendStringInfo(&buf, " and %d more", n - listed);
		relation_close(rel, AccessShareLock);
		shown++;
	}
	return shown > 0 ? buf.data : NULL;
}

/*
 * Does a token (its code, its text) end where a value comes next: an
 * operator, a comparison, "(", ",", or a keyword that takes a value (LIKE,
 * LIMIT, BETWEEN ... AND)?  A placeholder stands where a value would; a
 * jsonb ? or an array slice's : follows a value (review 167 F4: they got
 * the placeholder hint).
 */
static bool
sb_value_expected(int tok, const char *text)
{
	static const char *const words[] = {"like", "ilike", "limit", "offset", "between",
	"and", "or", "then", "else", "when", "not", "select", "values", "set", "is", NULL};

	if (tok == '=' || tok == '<' || tok == '>' || tok == '(' || tok == ',' ||
		tok == '+' || tok == '-' || tok == '*' || tok == '/')
		return true;
	if (tok > 255 && (strncmp(text, "<>", 2) == 0 || strncmp(text, "!=", 2) == 0 ||
					  strncmp(text, "<=", 2) == 0 || strncmp(text, ">=", 2) == 0))
		return true;
	for (int i = 0; words[i] != NULL; i++)
	{
		size_t		n = strlen(words[i]);

		if (pg_strncasecmp(text, words[i], n) == 0 && !isalnum((unsigned char) text[n]) &&
			text[n] != '_' && text[n] != '$')
			return true;
	}
	return false;
}

/* how much of a query sb_foreign_placeholder reads */
#define SB_PLACEHOLDER_SCAN_BYTES	65536

/*
 * The parameter placeholder of another client library that query, which
 * failed to parse, uses where a value would stand: psycopg's %s or
 * %(name)s, the ? of JDBC, ODBC and sqlite, the :name of SQLAlchemy and
 * Oracle -- as the hint should name it -- or "IN $n" for a parameter
 * written as IN's list (psycopg2's tuple), or NULL (reviews 159 F5, 165 F3:
 * a model writes them for $1, $2).  Found by PostgreSQL's own scanner, so
 * nothing inside a string, a quoted name or a comment counts, nor a cast
 * (::), over the query's first SB_PLACEHOLDER_SCAN_BYTES (the parser has
 * read the whole text already), its warnings unsaid (they were, once).
 */
const char *
sb_foreign_placeholder(const char *query)
{
	MemoryContext cxt = CurrentMemoryContext;
	const char *volatile found = NULL;
	char	   *text = pnstrdup(query, SB_PLACEHOLDER_SCAN_BYTES);

	PG_TRY();
	{
		core_yy_extra_type extra;
		core_yyscan_t scanner = scanner_init(text, &extra, &ScanKeywords,
											 ScanKeywordTokens);
		core_YYSTYPE lval;
		int			loc;
		int			tok;
		int			prev = 0;		/* the last token, its end, where it began */
		int			prev_end = -1;
		int			prev_loc = -1;
		int			before = 0;		/* the one before it, where it began */
		int			before_loc = -1;

		extra.escape_string_warning = false;
		while (found == NULL && (tok = core_yylex(&lval, &loc, scanner)) != 0)
		{
			const char *at = extra.scanbuf + loc;
			bool		value_place = before_loc >= 0 &&
				sb_value_expected(before, extra.scanbuf + before_loc);

			CHECK_FOR_INTERRUPTS();
			if (prev == '%' && loc == prev_end && *at == '(' && value_place)
				found = "%(name)s";
			else if (prev == '%' && loc == prev_end && *at == 's' && value_place &&
					 !isalnum((unsigned char) at[1]) && at[1] != '_' && at[1] != '$')
				found = "%s";
			else if (prev == ':' && loc == prev_end && value_place &&
					 (isalpha((unsigned char) *at) || *at == '_'))
				found = ":name";
			else if (tok > 255 && *at == '?' && prev_loc >= 0 &&
					 sb_value_expected(prev, extra.scanbuf + prev_loc) &&
					 (at[1] == '\0' || strchr("~!@#^&|`?+-*/%<>=", at[1]) == NULL))
				found = "?";
			else if (*at == '$' && isdigit((unsigned char) at[1]) && prev_loc >= 0 &&
					 pg_strncasecmp(extra.scanbuf + prev_loc, "in", 2) == 0 &&
					 !isalnum((unsigned char) extra.scanbuf[prev_loc + 2]) &&
					 extra.scanbuf[prev_loc + 2] != '_' && extra.scanbuf[prev_loc + 2] != '$' &&
					 extra.scanbuf[prev_loc + 2] != '"')
				found = "IN $n";
			before = prev;
			before_loc = prev_loc;
			prev = tok;
			prev_end = loc + 1;
			prev_loc = loc;
		}
		scanner_finish(scanner);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		FlushErrorState();
		found = NULL;
	}
	PG_END_TRY();
	return found;
}
