# pysandbox: a PostgreSQL extension (the backend library, which embeds no
# Python) plus pysandbox-worker, the exec'd binary that embeds Debian's
# CPython and forks one contained child per call.

EXTENSION = pysandbox
DATA = pysandbox--0.1.sql pysandbox--0.1--0.2.sql
MODULE_big = pysandbox
OBJS = \
	src/backend/sb_main.o \
	src/backend/sb_guc.o \
	src/backend/sb_role.o \
	src/backend/sb_worker.o \
	src/backend/sb_modules.o \
	src/backend/sb_statements.o \
	src/backend/sb_server.o \
	src/backend/sb_call.o \
	src/backend/sb_options.o \
	src/backend/sb_inputs.o \
	src/backend/sb_names.o \
	src/backend/sb_params.o \
	src/backend/sb_sql.o \
	src/backend/sb_describe.o \
	src/backend/sb_columns.o \
	src/backend/sb_result.o \
	src/backend/sb_json.o \
	src/backend/sb_rows.o \
	src/backend/sb_slowinput.o \
	src/backend/sb_run.o \
	src/backend/sb_language.o src/backend/sb_held.o src/backend/sb_workspace.o \
	src/backend/sb_stat.o \
	src/backend/sb_groups.o \
	src/backend/sb_group_results.o \
	src/backend/sb_partitions.o \
	src/backend/sb_parallel.o \
	src/backend/sb_stream.o \
	src/protocol/sb_frame.o \
	src/protocol/sb_decode.o
PGFILEDESC = "pysandbox - run untrusted Python next to the data"

REGRESS = basic inputs types errors limits validation security guc rows agents repairs language sqlcall perrow describe workspace charts groups stream
REGRESS_OPTS = --load-extension=pysandbox

PG_CONFIG ?= /usr/lib/postgresql/15/bin/pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)

# Always Debian's interpreter, pinned by path: the first Python on PATH may
# be another one, without pandas.
PYTHON_CONFIG = /usr/bin/python3-config
PY_CFLAGS := $(shell $(PYTHON_CONFIG) --cflags --embed)
PY_LDFLAGS := $(shell $(PYTHON_CONFIG) --ldflags --embed)

WORKER = src/worker/pysandbox-worker
WORKER_OBJS = \
	src/worker/sb_worker.wo \
	src/worker/sb_fork.wo \
	src/worker/sb_spares.wo \
	src/worker/sb_admission.wo \
	src/worker/sb_held.wo \
	src/worker/sb_contain.wo \
	src/worker/sb_landlock.wo \
	src/worker/sb_mountns.wo \
	src/worker/sb_seccomp.wo \
	src/worker/sb_python.wo \
	src/worker/sb_io.wo \
	src/worker/sb_memguard.wo \
	src/worker/sb_between.wo \
	src/worker/sb_dtypeguard.wo \
	src/worker/sb_addrguard.wo \
	src/worker/sb_hashguard.wo \
	src/worker/sb_where.wo \
	src/worker/sb_hotpages.wo \
	src/worker/sb_seal.wo \
	src/worker/sb_preloaded.wo \
	src/worker/sb_embedded.wo \
	src/worker/sb_frame.wo
# order matters: a module may import only the ones before it
PY_SOURCES = \
	src/python/sb_guard.py \
	src/python/sb_shims.py \
	src/python/sb_memory.py \
	src/python/sb_cpython.py \
	src/python/sb_bounds.py \
	src/python/sb_harden.py \
	src/python/sb_charts.py \
	src/python/sb_state.py \
	src/python/sb_validator.py \
	src/python/sb_codec.py \
	src/python/sb_errors.py \
	src/python/sb_runtime.py

# the benchmark's floor: fork + the same containment + exit (test/bench)
FLOOR = test/bench/sb-floor
FLOOR_OBJS = src/worker/sb_contain.wo src/worker/sb_landlock.wo \
	src/worker/sb_mountns.wo src/worker/sb_seccomp.wo src/worker/sb_frame.wo

EXTRA_CLEAN = $(WORKER) $(WORKER_OBJS) src/worker/sb_embedded.c $(FLOOR)

include $(PGXS)

WORKER_CFLAGS = -std=gnu99 -O2 -g -Wall -Wextra -Wno-unused-parameter \
	-Wno-missing-field-initializers -D_GNU_SOURCE -fstack-protector-strong \
	-D_FORTIFY_SOURCE=2 -fPIE

all: $(WORKER)

src/worker/sb_embedded.c: $(PY_SOURCES) src/worker/sb_embed.sh
	sh src/worker/sb_embed.sh $@ $(PY_SOURCES)

src/worker/sb_python.wo: src/worker/sb_python.c src/worker/sb_worker.h src/protocol/sb_protocol.h
	$(CC) $(WORKER_CFLAGS) $(PY_CFLAGS) -c -o $@ $<

src/worker/sb_io.wo: src/worker/sb_io.c src/worker/sb_worker.h src/protocol/sb_protocol.h
	$(CC) $(WORKER_CFLAGS) $(PY_CFLAGS) -c -o $@ $<

src/worker/sb_memguard.wo: src/worker/sb_memguard.c src/worker/sb_worker.h
	$(CC) $(WORKER_CFLAGS) $(PY_CFLAGS) -c -o $@ $<

src/worker/sb_between.wo: src/worker/sb_between.c src/worker/sb_worker.h
	$(CC) $(WORKER_CFLAGS) $(PY_CFLAGS) -c -o $@ $<

src/worker/sb_dtypeguard.wo: src/worker/sb_dtypeguard.c src/worker/sb_worker.h
	$(CC) $(WORKER_CFLAGS) $(PY_CFLAGS) -c -o $@ $<

src/worker/sb_addrguard.wo: src/worker/sb_addrguard.c src/worker/sb_worker.h
	$(CC) $(WORKER_CFLAGS) $(PY_CFLAGS) -c -o $@ $<

src/worker/sb_hashguard.wo: src/worker/sb_hashguard.c src/worker/sb_worker.h
	$(CC) $(WORKER_CFLAGS) $(PY_CFLAGS) -c -o $@ $<

src/worker/sb_where.wo: src/worker/sb_where.c src/worker/sb_worker.h src/protocol/sb_protocol.h
	$(CC) $(WORKER_CFLAGS) $(PY_CFLAGS) -c -o $@ $<

src/worker/sb_frame.wo: src/protocol/sb_frame.c src/protocol/sb_protocol.h
	$(CC) $(WORKER_CFLAGS) -c -o $@ $<

src/worker/%.wo: src/worker/%.c src/worker/sb_worker.h src/worker/sb_children.h src/protocol/sb_protocol.h
	$(CC) $(WORKER_CFLAGS) -c -o $@ $<

# libpython's functions the worker answers for the extension modules it
# loads (sb_memguard.c, sb_dtypeguard.c), which bind to its exports
WORKER_EXPORTS = PySequence_Fast PyDict_SetItem PyUnicode_AsUTF8AndSize PyLong_AsLong \
	Py_EnterRecursiveCall Py_LeaveRecursiveCall PyMapping_GetItemString PyObject_GetItem \
	PySequence_GetItem PyObject_Size PySequence_Size PyObject_GetIter PySequence_Tuple

$(WORKER): $(WORKER_OBJS)
	$(CC) -pie -o $@ $(WORKER_OBJS) $(PY_LDFLAGS) -lseccomp -Wl,-z,relro,-z,now \
		$(foreach s,$(WORKER_EXPORTS),-Wl,--export-dynamic-symbol=$(s))

floor: $(FLOOR)

$(FLOOR): test/bench/floor.c $(FLOOR_OBJS)
	$(CC) $(WORKER_CFLAGS) $(PY_CFLAGS) -pie -o $@ test/bench/floor.c $(FLOOR_OBJS) $(PY_LDFLAGS) -lseccomp

$(OBJS): src/protocol/sb_protocol.h src/backend/pysandbox.h

install: install-worker

install-worker: $(WORKER)
	$(INSTALL_PROGRAM) $(WORKER) '$(DESTDIR)$(pkglibdir)/pysandbox-worker'

uninstall: uninstall-worker

uninstall-worker:
	rm -f '$(DESTDIR)$(pkglibdir)/pysandbox-worker'

.PHONY: install-worker uninstall-worker
