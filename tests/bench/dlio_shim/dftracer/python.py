"""A do-nothing stand-in for the tracing hooks dlio_benchmark 2.x imports
(dftracer.python): every hook accepts anything and records nothing, so DLIO
runs as with tracing disabled (DFTRACER_ENABLE = False).  Used only by
tests/bench/dlio_bench.py when the real package is not installed."""

DFTRACER_ENABLE = False


class _Nothing:
    """Any attribute, call, decorator, iterator wrapper or context manager."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return _Nothing()

    def __call__(self, *args, **kwargs):
        # used as a decorator: give the function back unchanged
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return _Nothing()

    def iter(self, iterable, *args, **kwargs):
        return iterable

    def log(self, func):
        return func

    def log_init(self, func):
        return func

    def log_static(self, func):
        return func

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __bool__(self):
        return False


class dftracer(_Nothing):
    _instance = None

    @classmethod
    def get_instance(cls):
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    @staticmethod
    def initialize_log(*args, **kwargs):
        return dftracer.get_instance()

    def finalize(self, *args, **kwargs):
        return None


class dft_fn(_Nothing):
    pass


ai = _Nothing()
