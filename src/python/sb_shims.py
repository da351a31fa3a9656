"""Modules written for the sandbox: sys, traceback and logging as analysis
code uses them, without what the real ones reach.

The real sys is the interpreter's state (modules, frames, hooks), the real
traceback hands out frames, and the real logging keeps process-wide state
(handlers, logger classes, record factories) that outlives a call and runs
the code's objects from library code.  These hold none of that: sys has
the call's output streams and the interpreter's constants, traceback
formats exceptions as the call's error reports do (the code's own lines
only), and logging formats records into the call's stderr (or a stream the
code gives).  Each call that imports one gets fresh ones (make_shim), so
nothing of a logging configuration reaches the next call of a held child.

They are imported only when their names are allowed (pysandbox.allowed_modules
lists sys, traceback and logging by default); the real modules never are.
"""

import sys
import time
import types

import sb_guard

# the call's user_traceback(exc) -> text, set by the runtime for each call
USER_TRACEBACK = [None]

SHIM_NAMES = frozenset({"sys", "traceback", "logging"})


def _module(name, doc, members):
    module = types.ModuleType(name, doc)
    for key, value in members.items():
        setattr(module, key, value)
    return module


def _write(file, text):
    """Text to file (anything with write()), or to the call's stderr."""
    if file is None:
        file = sys.stderr
    file.write(text)


# -------------------------------------------------------------------- sys

def _sys_members():
    def exc_info():
        """(type, value, None) of the exception being handled: tracebacks
        are not handed out; traceback.format_exc() formats one."""
        exc = sys.exception() if hasattr(sys, "exception") else sys.exc_info()[1]
        if exc is None:
            return (None, None, None)
        return (type(exc), sb_guard.guard_caught(exc), None)

    def exit(status=None):
        raise SystemExit(status)

    def stream(name):
        # the call's streams are set when it begins: look them up each time
        if name in ("stdout", "stderr"):
            return getattr(sys, name)
        raise AttributeError(
            'module "sys" in the sandbox has no attribute "%s" (the interpreter\'s '
            'own state is not allowed); it has: %s'
            % (name, ", ".join(sorted(_SYS_PUBLIC))))

    # the interpreter's functions the shim lends, as functions of the
    # shim's: module proxies refuse what belongs to the real sys
    def getdefaultencoding():
        """sys.getdefaultencoding()"""
        return sys.getdefaultencoding()

    def getrecursionlimit():
        """sys.getrecursionlimit()"""
        return sys.getrecursionlimit()

    def getsizeof(obj, *default):
        """sys.getsizeof(obj[, default]): the object's size in bytes."""
        return sys.getsizeof(obj, *default)

    return {
        "__getattr__": stream,
        "__dir__": lambda: sorted(_SYS_PUBLIC),
        "argv": [""],
        "byteorder": sys.byteorder,
        "exc_info": exc_info,
        "exit": exit,
        "float_info": sys.float_info,
        "float_repr_style": sys.float_repr_style,
        "getdefaultencoding": getdefaultencoding,
        "getrecursionlimit": getrecursionlimit,
        "getsizeof": getsizeof,
        "hexversion": sys.hexversion,
        "int_info": sys.int_info,
        "maxsize": sys.maxsize,
        "maxunicode": sys.maxunicode,
        "platform": sys.platform,
        "version": sys.version,
        "version_info": sys.version_info,
    }


_SYS_PUBLIC = frozenset(k for k in _sys_members() if not k.startswith("_")) | {"stdout", "stderr"}


# -------------------------------------------------------------- traceback

def _type_name(exc):
    cls = type(exc)
    module = getattr(cls, "__module__", None)
    name = getattr(cls, "__qualname__", cls.__name__)
    if module in (None, "builtins", "__main__", "__sandbox__"):
        return name
    return "%s.%s" % (module, name)


def _only(exc):
    """The last line of a report: "KeyError: 'b'"."""
    if exc is None:
        return "NoneType: None\n"
    try:
        text = str(exc)
    except Exception:
        text = "<exception str() failed>"
    return "%s: %s\n" % (_type_name(exc), text) if text else "%s\n" % _type_name(exc)


_CAUSE = BaseException.__dict__["__cause__"].__get__
_CONTEXT = BaseException.__dict__["__context__"].__get__
_SUPPRESS = BaseException.__dict__["__suppress_context__"].__get__


def _one(exc):
    lines = []
    text = USER_TRACEBACK[0](exc) if USER_TRACEBACK[0] is not None else None
    if text:
        lines.append("Traceback (most recent call last):\n")
        lines.extend(line + "\n" for line in text.split("\n"))
    lines.append(_only(exc))
    return lines


def _format(exc, chain):
    """The lines of exc's report, with its cause or context first (as
    Python prints them), at most 16 deep."""
    if exc is None:
        return [_only(None)]
    if not isinstance(exc, BaseException):
        raise TypeError("format_exception() takes an exception, not %s" % type(exc).__name__)
    chained = []
    seen = set()
    while chain and exc is not None and id(exc) not in seen and len(chained) < 16:
        seen.add(id(exc))
        cause = _CAUSE(exc)
        if cause is not None:
            chained.append((exc, "\nThe above exception was the direct cause of the "
                                 "following exception:\n\n"))
            exc = cause
            continue
        context = _CONTEXT(exc)
        if context is not None and not _SUPPRESS(exc):
            chained.append((exc, "\nDuring handling of the above exception, another "
                                 "exception occurred:\n\n"))
            exc = context
            continue
        break
    lines = _one(exc)
    for outer, between in reversed(chained):
        lines.append(between)
        lines.extend(_one(outer))
    return lines


def _value(exc, value):
    # format_exception(type, value, tb), or (exc) as in Python 3.10+
    if isinstance(exc, BaseException) or exc is None:
        return exc
    return value


def _current():
    return sys.exception() if hasattr(sys, "exception") else sys.exc_info()[1]


def _traceback_members():
    def format_exception_only(exc, value=None):
        return [_only(_value(exc, value))]

    def format_exception(exc, value=None, tb=None, limit=None, chain=True):
        return _format(_value(exc, value), chain)

    def print_exception(exc, value=None, tb=None, limit=None, file=None, chain=True):
        _write(file, "".join(_format(_value(exc, value), chain)))

    def format_exc(limit=None, chain=True):
        return "".join(_format(_current(), chain))

    def print_exc(limit=None, file=None, chain=True):
        _write(file, format_exc(limit, chain))

    return {
        "format_exc": format_exc,
        "format_exception": format_exception,
        "format_exception_only": format_exception_only,
        "print_exc": print_exc,
        "print_exception": print_exception,
    }


# ---------------------------------------------------------------- logging

CRITICAL, ERROR, WARNING, INFO, DEBUG, NOTSET = 50, 40, 30, 20, 10, 0
_LEVEL_NAMES = {CRITICAL: "CRITICAL", ERROR: "ERROR", WARNING: "WARNING",
                INFO: "INFO", DEBUG: "DEBUG", NOTSET: "NOTSET"}
_NAME_LEVELS = {v: k for k, v in _LEVEL_NAMES.items()}
_NAME_LEVELS.update({"WARN": WARNING, "FATAL": CRITICAL})
BASIC_FORMAT = "%(levelname)s:%(name)s:%(message)s"


def _level(level):
    if type(level) is int:
        return level
    if type(level) is str and level.upper() in _NAME_LEVELS:
        return _NAME_LEVELS[level.upper()]
    raise ValueError("Unknown level: %r" % (level,))


def _checked_format(fmt, style):
    """(fmt, style) as exact strs, a {-style format checked as str.format
    is in the code: each is read once, here, and what is checked is used."""
    if type(style) is not str or style not in ("%", "{"):
        raise ValueError('logging formats in the sandbox take style "%%" or "{", not %r'
                         % (style,))
    if fmt is None:
        return None, style
    if not isinstance(fmt, str):
        raise TypeError("a logging format must be a string")
    fmt = str.__str__(fmt)
    if style == "{":
        problem = sb_guard.format_string_problem(fmt)
        if problem is not None:
            raise ValueError(problem)
    return fmt, style


def _make_logging():
    """A fresh logging module: its loggers and configuration live as long
    as the call's import of it."""
    loggers = {}
    state = {"disable": NOTSET}

    # the classes are made for each import: one call's changes to them
    # (a patched method) never reach the next call of a workspace
    class LogRecord:
        """What a logger makes of one call: plain values only."""

        def __init__(self, name, level, msg, args, exc_text, extra):
            now = time.time()
            self.name = name
            self.levelno = level
            self.levelname = _LEVEL_NAMES.get(level, "Level %d" % level)
            self.msg = msg
            self.args = args
            self.created = now
            self.msecs = int(now * 1000) % 1000
            self.relativeCreated = 0.0
            self.module = "__sandbox__"
            self.filename = self.pathname = "<sandbox>"
            self.funcName = ""
            self.lineno = 0
            self.process = self.thread = 1
            self.processName = "MainProcess"
            self.threadName = "MainThread"
            self.exc_info = None
            self.exc_text = exc_text
            self.stack_info = None
            for key, value in (extra or {}).items():
                if type(key) is str and key.isidentifier() and not key.startswith("_") \
                        and key not in vars(self):
                    setattr(self, key, value)
            self.message = self.getMessage()

        def getMessage(self):
            try:
                return str(self.msg) % self.args if self.args else str(self.msg)
            except (TypeError, ValueError, KeyError) as exc:
                return "%s (logging could not format its arguments %r: %s)" % (
                    self.msg, self.args, exc)


    class Formatter:
        """%- or {-style formats of a record's values; datefmt is a
        time.strftime format.  A {-style format is checked as str.format
        is in user code, each time (the code may change fmt)."""

        default_time_format = "%Y-%m-%d %H:%M:%S"

        def __init__(self, fmt=None, datefmt=None, style="%", validate=True, **kwargs):
            fmt, style = _checked_format(fmt, style)
            self.fmt = fmt if fmt is not None else ("%(message)s" if style == "%" else "{message}")
            self.datefmt = datefmt
            self.style = style

        def formatTime(self, record, datefmt=None):
            when = time.localtime(record.created)
            if datefmt:
                return time.strftime(datefmt, when)
            return "%s,%03d" % (time.strftime(self.default_time_format, when), record.msecs)

        def formatMessage(self, record):
            values = dict(vars(record))
            values["message"] = record.getMessage()
            values["asctime"] = self.formatTime(record, self.datefmt)
            fmt, style = _checked_format(self.fmt, self.style)
            if fmt is None:
                fmt = "%(message)s" if style == "%" else "{message}"
            if style == "%":
                return fmt % values
            return fmt.format(**values)

        def format(self, record):
            text = self.formatMessage(record)
            if record.exc_text:
                text = text + "\n" + str(record.exc_text).rstrip("\n")
            return text

    _default = Formatter()

    class Handler:
        def __init__(self, level=NOTSET):
            self.level = _level(level)
            self.formatter = None

        def setLevel(self, level):
            self.level = _level(level)

        def setFormatter(self, fmt):
            self.formatter = fmt

        def format(self, record):
            return (self.formatter or _default).format(record)

        def handle(self, record):
            if record.levelno >= self.level:
                self.emit(record)

        def emit(self, record):
            pass

        def flush(self):
            pass

        def close(self):
            pass

    class StreamHandler(Handler):
        terminator = "\n"

        def __init__(self, stream=None):
            Handler.__init__(self)
            self.stream = stream

        def emit(self, record):
            _write(self.stream, self.format(record) + self.terminator)

    class NullHandler(Handler):
        pass

    class Logger:
        def __init__(self, name, level=NOTSET):
            self.name = name
            self.level = _level(level)
            self.handlers = []
            self.propagate = True
            self.disabled = False
            self.parent = None

        def setLevel(self, level):
            self.level = _level(level)

        def getEffectiveLevel(self):
            logger, seen = self, 0
            while logger is not None and seen < 1000:
                if logger.level:
                    return logger.level
                logger, seen = logger.parent, seen + 1
            return NOTSET

        def isEnabledFor(self, level):
            level = _level(level)
            return not self.disabled and level > state["disable"] and \
                level >= self.getEffectiveLevel()

        def addHandler(self, handler):
            if handler not in self.handlers:
                self.handlers.append(handler)

        def removeHandler(self, handler):
            if handler in self.handlers:
                self.handlers.remove(handler)

        def hasHandlers(self):
            return bool(self._chain())

        def _chain(self):
            """The handlers a record of this logger goes to."""
            found, logger, seen = [], self, 0
            while logger is not None and seen < 1000:
                found.extend(logger.handlers)
                logger = logger.parent if logger.propagate else None
                seen += 1
            return found

        def getChild(self, suffix):
            return getLogger(suffix if self is root else "%s.%s" % (self.name, suffix))

        def log(self, level, msg, *args, exc_info=None, stack_info=False, stacklevel=1,
                extra=None):
            level = _level(level)
            if not self.isEnabledFor(level):
                return
            exc_text = None
            if exc_info:
                exc = exc_info if isinstance(exc_info, BaseException) else _current()
                if exc is not None:
                    exc_text = "".join(_format(exc, True))
            record = LogRecord(self.name, level, msg, args, exc_text,
                               extra if type(extra) is dict else None)
            handlers = self._chain()
            for handler in handlers:
                handler.handle(record)
            if not handlers and level >= WARNING:
                # Python's last resort: the message alone, to stderr
                _write(None, record.getMessage() + "\n")

        def debug(self, msg, *args, **kwargs):
            self.log(DEBUG, msg, *args, **kwargs)

        def info(self, msg, *args, **kwargs):
            self.log(INFO, msg, *args, **kwargs)

        def warning(self, msg, *args, **kwargs):
            self.log(WARNING, msg, *args, **kwargs)

        warn = warning

        def error(self, msg, *args, **kwargs):
            self.log(ERROR, msg, *args, **kwargs)

        def exception(self, msg, *args, exc_info=True, **kwargs):
            self.log(ERROR, msg, *args, exc_info=exc_info, **kwargs)

        def critical(self, msg, *args, **kwargs):
            self.log(CRITICAL, msg, *args, **kwargs)

        fatal = critical

    root = Logger("root", WARNING)

    def getLogger(name=None):
        if name is None or name == "" or name == "root":
            return root
        if type(name) is not str:
            raise TypeError("A logger name must be a string")
        logger = loggers.get(name)
        if logger is None:
            logger = loggers[name] = Logger(name)
            # its parent: the nearest logger above it by dotted name
            parent = name.rpartition(".")[0]
            while parent and parent not in loggers:
                parent = parent.rpartition(".")[0]
            logger.parent = loggers.get(parent, root)
            # ... and it becomes the parent of those below it
            for other in loggers.values():
                if other.name.startswith(name + ".") and other.parent is logger.parent:
                    other.parent = logger
        return logger

    def basicConfig(level=None, format=None, datefmt=None, style="%", stream=None,
                    handlers=None, force=False, filename=None, **kwargs):
        if filename is not None or "filemode" in kwargs:
            raise PermissionError("logging to a file is not allowed in the sandbox: "
                                  "records go to the call's stderr (sandbox_run "
                                  "returns it), or pass stream=io.StringIO()")
        if force:
            root.handlers = []
        if root.handlers:
            return
        if format is None:
            format = BASIC_FORMAT if style == "%" else "{levelname}:{name}:{message}"
        formatter = Formatter(format, datefmt, style)
        for handler in handlers or [StreamHandler(stream)]:
            if handler.formatter is None:
                handler.setFormatter(formatter)
            root.addHandler(handler)
        if level is not None:
            root.setLevel(level)

    def log(level, msg, *args, **kwargs):
        # as Python's: the module's functions configure the root logger once
        if not root.handlers:
            basicConfig()
        root.log(level, msg, *args, **kwargs)

    def at(level):
        def log_at(msg, *args, **kwargs):
            log(level, msg, *args, **kwargs)
        return log_at

    def exception(msg, *args, exc_info=True, **kwargs):
        log(ERROR, msg, *args, exc_info=exc_info, **kwargs)

    def disable(level=CRITICAL):
        state["disable"] = _level(level)

    def getLevelName(level):
        if level in _LEVEL_NAMES:
            return _LEVEL_NAMES[level]
        if level in _NAME_LEVELS:
            return _NAME_LEVELS[level]
        return "Level %s" % level

    def captureWarnings(capture):
        """Warnings reach the call's stderr already."""

    return {
        "CRITICAL": CRITICAL, "FATAL": CRITICAL, "ERROR": ERROR, "WARNING": WARNING,
        "WARN": WARNING, "INFO": INFO, "DEBUG": DEBUG, "NOTSET": NOTSET,
        "BASIC_FORMAT": BASIC_FORMAT, "LogRecord": LogRecord,
        "Formatter": Formatter, "Handler": Handler, "StreamHandler": StreamHandler,
        "NullHandler": NullHandler, "Logger": Logger, "root": root,
        "getLogger": getLogger, "basicConfig": basicConfig, "log": log,
        "debug": at(DEBUG), "info": at(INFO), "warning": at(WARNING), "warn": at(WARNING),
        "error": at(ERROR), "exception": exception, "critical": at(CRITICAL),
        "fatal": at(CRITICAL), "disable": disable, "getLevelName": getLevelName,
        "captureWarnings": captureWarnings,
    }


def make_shim(name):
    """A fresh module for the sandbox's `name` (one of SHIM_NAMES)."""
    if name == "sys":
        return _module("sys", "The call's output streams and the interpreter's "
                              "constants (the sandbox's sys).", _sys_members())
    if name == "traceback":
        return _module("traceback", "Exceptions formatted as the call's error "
                                    "reports show them (the sandbox's traceback).",
                       _traceback_members())
    if name == "logging":
        return _module("logging", "Log records to the call's stderr (the sandbox's "
                                  "logging).", _make_logging())
    raise ImportError('module "%s" has no sandbox version' % name)


sb_guard.SHIMS.update(dict.fromkeys(SHIM_NAMES, make_shim))
