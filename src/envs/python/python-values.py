# Plain values between the agent's interpreter and the judge (part of the Python driver: the host sends
# this file and python-driver.py together as one program; see python-driver.py's header).
#
# The judge, a process the agent's code never ran in, evaluates each test's assert with the agent's
# functions replaced by AgentFunction proxies. A proxy asks the agent's interpreter (through the driver
# and the host) to call the function on plain arguments; the answer is a plain value in the tagged form
# below. encode() keeps only values whose type is exactly a builtin or stdlib value type
# (`type(x) is int`, never isinstance), rebuilding containers element by element; anything else is an
# opaque reference. decode() on the judge's side accepts nothing but that form and builds plain values
# again, so no method of an agent object ever runs in the judge, and an Opaque is equal only to itself:
# its comparisons are the judge's. Iteration, len, str, repr, bool and numeric conversion of an opaque
# result (a generator, a map) are asked of the agent's side and come back plain.

import builtins as _builtins_module, collections as _collections, decimal as _decimal, fractions as _fractions, sys

MAX_DEPTH = 200

_FACTORIES = {'list': list, 'int': int, 'set': set, 'dict': dict, 'str': str, 'float': float,
              'tuple': tuple, 'None': None}


def encode(value, keep=None, depth=0, path=None):
    """The tagged form of value. keep(obj) -> reference for an opaque object; None: refuse them."""
    if depth > MAX_DEPTH:
        raise ValueError('the value is nested too deeply to be passed')
    kind = type(value)
    if value is None:
        return ['N']
    if kind is bool:
        return ['B', value]
    if kind is int:
        return ['i', str(value)] if abs(value) > 2 ** 52 else ['i', value]
    if kind is float:
        return ['f', repr(value)]
    if kind is str:
        return ['s', value]
    if kind is complex:
        return ['c', repr(value.real), repr(value.imag)]
    if kind is bytes:
        return ['y', value.hex()]
    if kind is bytearray:
        return ['Y', bytes(value).hex()]
    if kind is range:
        return ['r', value.start, value.stop, value.step]
    if kind is _decimal.Decimal:
        return ['D', str(value)]
    if kind is _fractions.Fraction:
        return ['Q', str(value.numerator), str(value.denominator)]
    path = set() if path is None else path
    containers = {list: 'l', tuple: 't', set: 'S', frozenset: 'F', _collections.deque: 'q'}
    if kind in containers or kind in (dict, _collections.OrderedDict, _collections.Counter, _collections.defaultdict):
        if id(value) in path:
            return opaque(value, keep)
        path.add(id(value))
        try:
            if kind in containers:
                items = [encode(item, keep, depth + 1, path) for item in list(value)]
                if kind is _collections.deque:
                    return ['q', items, value.maxlen]
                return [containers[kind], items]
            pairs = [[encode(k, keep, depth + 1, path), encode(v, keep, depth + 1, path)] for k, v in list(dict.items(value))]
            if kind is dict:
                return ['d', pairs]
            if kind is _collections.OrderedDict:
                return ['o', pairs]
            if kind is _collections.Counter:
                return ['C', pairs]
            factory = value.default_factory
            names = [name for name, known in _FACTORIES.items() if known is factory]
            if not names:
                return opaque(value, keep)
            return ['e', names[0], pairs]
        finally:
            path.discard(id(value))
    return opaque(value, keep)


def opaque(value, keep):
    if keep is None:
        raise TypeError('cannot pass a %s to the submitted function' % type(value).__name__)
    return ['x', keep(value), type(value).__name__[:80]]


def decode(form, ask=None, depth=0, resolve=None):
    """A plain value from its tagged form; anything malformed raises ValueError. ask: the agent's side
    (for the judge's Opaque values); resolve(tag, key) -> object: the agent's side, for arguments that
    are references (an opaque result by number, a global of the setup code by name)."""
    if depth > MAX_DEPTH or type(form) is not list or not form or type(form[0]) is not str:
        raise ValueError('a malformed value')
    tag, rest = form[0], form[1:]

    def arg(index, *types):
        if len(rest) <= index or type(rest[index]) not in types:
            raise ValueError('a malformed value')
        return rest[index]

    def items(index):
        return [decode(item, ask, depth + 1, resolve) for item in arg(index, list)]

    def pairs(index):
        out = []
        for pair in arg(index, list):
            if type(pair) is not list or len(pair) != 2:
                raise ValueError('a malformed value')
            out.append((decode(pair[0], ask, depth + 1, resolve), decode(pair[1], ask, depth + 1, resolve)))
        return out

    if tag == 'N':
        return None
    if tag == 'B':
        return arg(0, bool)
    if tag == 'i':
        number = arg(0, int, str)
        if type(number) is str and not number.lstrip('-').isdigit():
            raise ValueError('a malformed value')
        return int(number)
    if tag == 'f':
        return float(arg(0, str))
    if tag == 's':
        return arg(0, str)
    if tag == 'c':
        return complex(float(arg(0, str)), float(arg(1, str)))
    if tag == 'y':
        return bytes.fromhex(arg(0, str))
    if tag == 'Y':
        return bytearray.fromhex(arg(0, str))
    if tag == 'r':
        return range(arg(0, int), arg(1, int), arg(2, int))
    if tag == 'D':
        return _decimal.Decimal(arg(0, str))
    if tag == 'Q':
        return _fractions.Fraction(int(arg(0, str)), int(arg(1, str)))
    if tag == 'l':
        return items(0)
    if tag == 't':
        return tuple(items(0))
    if tag == 'S':
        return set(items(0))
    if tag == 'F':
        return frozenset(items(0))
    if tag == 'q':
        maxlen = arg(1, int, type(None))
        return _collections.deque(items(0), maxlen)
    if tag == 'd':
        return dict(pairs(0))
    if tag == 'o':
        return _collections.OrderedDict(pairs(0))
    if tag == 'C':
        return _collections.Counter(dict(pairs(0)))
    if tag == 'e':
        name = arg(0, str)
        if name not in _FACTORIES:
            raise ValueError('a malformed value')
        return _collections.defaultdict(_FACTORIES[name], pairs(1))
    if tag in ('g', 'b') and resolve is not None:
        return resolve(tag, arg(0, str))
    if tag == 'x':
        if resolve is not None:
            return resolve('x', arg(0, int))
        if ask is None:
            raise ValueError('a malformed value')
        return Opaque(arg(0, int), arg(1, str), ask)
    raise ValueError('a malformed value')


# ---------------------------------------------------------------- the judge's side


class AgentRaised(Exception):
    """The agent's function raised (or could not be called): its described error, verbatim."""

    def __init__(self, text):
        super().__init__(text)
        self.text = text


class Opaque:
    """A result that is no plain value: equal to itself only; the rest is asked of the agent's side."""

    __slots__ = ('_ref', '_type', '_ask')

    def __init__(self, ref, type_name, ask):
        self._ref, self._type, self._ask = ref, type_name, ask

    def _plain(self, how):
        return self._ask({'kind': 'opaque', 'ref': self._ref, 'how': how})

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def __hash__(self):
        return hash(('opaque', self._ref))

    def __iter__(self):
        return iter(_exact(self._plain('iter'), list))

    def __len__(self):
        # A TypeError, as the agent's side had it: list() and friends ask for a length first and go on
        # without one on a TypeError (a generator has none).
        try:
            return _exact(self._plain('len'), int)
        except AgentRaised as error:
            raise TypeError(error.text[len('Error: '):] if error.text.startswith('Error: ') else error.text) from None

    def __bool__(self):
        return _exact(self._plain('bool'), bool)

    def __str__(self):
        return _exact(self._plain('str'), str)

    def __repr__(self):
        return _exact(self._plain('repr'), str)

    def __float__(self):
        return _exact(self._plain('float'), float)

    def __int__(self):
        return _exact(self._plain('int'), int)

    def __index__(self):
        return _exact(self._plain('index'), int)

    def __contains__(self, item):
        return item in list(self)


def _exact(value, kind):
    if type(value) is not kind:
        raise TypeError('the submitted function’s result gave a %s where a %s was due' % (type(value).__name__, kind.__name__))
    return value


class AgentFunction:
    """A function of the agent's interpreter, called there on plain arguments."""

    __slots__ = ('_name', '_ask', '_namespace')

    def __init__(self, name, ask, namespace):
        self._name, self._ask, self._namespace = name, ask, namespace

    def __call__(self, *args, **kwargs):
        names = {id(value): name for name, value in dict.items(self._namespace)
                 if type(value) not in _IMMUTABLE and not name.startswith('__')}
        return self._ask({'kind': 'call', 'name': self._name, 'args': [encode_argument(arg, names) for arg in args],
                          'kwargs': [[key, encode_argument(value, names)] for key, value in kwargs.items()]})

    def __repr__(self):
        return '<function %s>' % self._name


_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, range, tuple, frozenset)
# Builtin functions and types (`int`, `len`) are passed by name: the agent's side passes its own.
_BUILTIN_NAMES = {id(value): name for name, value in vars(_builtins_module).items() if not name.startswith('_')}


def encode_argument(value, names):
    """An argument from the judge: a plain value; an opaque result of an earlier call by its number; an
    object the setup code bound to a global (its data, or of a class it defined) by that global's name:
    the agent's side ran the same setup code and passes its own."""
    if id(value) in names:
        return ['g', names[id(value)]]
    builtin = _BUILTIN_NAMES.get(id(value))
    if builtin is not None and type(value) not in _IMMUTABLE:
        return ['b', builtin]

    def keep(obj):
        if type(obj) is Opaque:
            return obj._ref
        raise TypeError('cannot pass a %s to the submitted function' % type(obj).__name__)
    return encode(value, keep)


def judge_namespace(ask, reference=None, modules=None):
    """Globals of the judge: the submitted function under the gold's name (even one that shadows a
    builtin, like `sum`); a name that no test or setup code defines, no builtin and no module the driver
    has loaded (`sys`, `math`, which the agent's code may have imported for its tests) is the agent's.
    modules: the names of those modules (the worker's at its first run; default: all loaded now)."""
    _builtins = _builtins_module

    class Namespace(dict):
        def __missing__(self, name):
            if name.startswith('__') or hasattr(_builtins, name):
                raise KeyError(name)
            module = sys.modules.get(name)
            if module is not None and '.' not in name and not name.startswith('_') and \
                    (modules is None or name in modules):
                return module
            return AgentFunction(name, ask, self)

    namespace = Namespace({'__name__': '__main__', '__builtins__': _builtins})
    if type(reference) is str and reference:
        dict.__setitem__(namespace, reference, AgentFunction(reference, ask, namespace))
    return namespace
