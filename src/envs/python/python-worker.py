# The worker part of the Python driver (see python-driver.py, whose header documents the protocol):
# loaded after python-driver.py, in one program with it.
# ---------------------------------------------------------------- worker (runs user code)


def wrap_rule(code):
    """Upstream's rule: print the value of an expression action."""
    tree = ast.parse(code.strip())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.Import)):
            return code
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == 'print':
            return code
    if code.strip().startswith('assert'):
        return code
    return 'print(%s)' % code


def describe(error):
    if type(error) is AgentRaised:
        return error.text
    try:
        text = str(error)
    except BaseException:
        text = '<unprintable %s>' % type(error).__name__
    if isinstance(error, Exception):
        return 'Error: ' + text
    # SystemExit, KeyboardInterrupt and friends: upstream had no defined answer; name the type.
    return 'Error: %s%s' % (type(error).__name__, ': ' + text if text else '')


def worker_main(idle=False):
    """A worker's loop; idle: a spare of the warm pool (python-warm-pool.py), warmed, waiting to be taken."""
    me = os.getpid()
    state = {'globals': {'__name__': '__main__', '__builtins__': builtins}, 'me': me, 'modules': frozenset(sys.modules)}
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    limit = CONFIG.get('memory_bytes')
    if limit:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError):
            pass
    # No POSIX message queue: it would outlive the episode in the driver's IPC namespace, unlisted.
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
    ctl = socket.socket(fileno=CTL)
    reader = ctl.makefile('rb')

    def send(obj):
        ctl.sendall(pack(obj))

    def receive():
        header = reader.read(4)
        if len(header) < 4:
            os._exit(0)
        return json.loads(reader.read(struct.unpack('>I', header)[0]))

    def ask(call):
        # The judge's way to the agent's interpreter: a speculated answer when the call is the next one
        # the probe made ahead of it (same function, same arguments, in the same order), else through the
        # driver and the host, one answer each. A call that differs from the next speculated one ends
        # the speculation (diverged: the host runs the tests again without it).
        spec = state.get('spec')
        if spec and call.get('kind') == 'call':
            if spec[0].get('call') == [call.get('name'), call.get('args'), call.get('kwargs')]:
                state['used'] += 1
                return answered(spec.pop(0))
            state['spec'] = None
            state['diverged'] = True
        send({'k': 'call', 'call': call})
        answer = receive().get('answer')
        if type(answer) is dict and type(answer.get('spec')) is list and 'used' not in state:
            state['spec'], state['used'] = answer['spec'], 0
            return ask(call)
        return answered(answer)

    def answered(answer):
        if type(answer) is not dict:
            raise AgentRaised('Error: the test process died')
        for stream, key in ((sys.stdout, 'out'), (sys.stderr, 'err')):
            if type(answer.get(key)) is str:
                stream.write(answer[key])
        if 'exc' in answer:
            text = answer['exc'] if type(answer['exc']) is str else ''
            raise AgentRaised(text if text.startswith('Error') else 'Error: ' + text)
        return decode(answer.get('value'), ask)

    state['receive'] = receive
    if idle:
        dumpable = warm_worker()
    while True:
        request = receive()
        if idle:
            if idle_request(request, send):
                continue
            idle = False
            dumpable()  # taken: its first request
        if request.get('done'):
            if state.get('copy'):
                os._exit(0)
            continue
        if 'fork' in request:
            fork_copies(int(request['fork']), state, send)
            continue
        if request.get('spend'):
            # A submission that ends the episode: this worker is the probe (no copy) and ends with it.
            state['me'] = os.getpid()
            send({'k': 'pid', 'pid': state['me']})
            run_batch(request, state, send)
            state['copy'] = True
            continue
        if request.get('isolated'):
            pid = frozen_fork()
            if pid:
                _, status = os.waitpid(pid, 0)
                send({'k': 'forkdone', 'status': status})
                continue
            os.setpgid(0, 0)
            state['me'] = os.getpid()
            send({'k': 'pid', 'pid': state['me']})
            run_batch(request, state, send)
            if not request.get('stay'):
                os._exit(0)
            state['copy'] = True  # a probe: it answers calls until told it is done
            continue
        if 'call' in request:
            result = run_one(request['call'], False, state, serve_call)
            if os.getpid() != state['me']:
                os._exit(0)
            result.update(k='r', i=0)
            send(result)
            send({'k': 'end'})
            continue
        if request.get('keep'):
            note_birth(state)  # python-kept-worker.py
        if request.get('judge'):
            state['globals'] = judge_namespace(ask, request.get('proxy'), state['modules'])
        elif request.get('renew'):
            state['globals'] = {'__name__': '__main__', '__builtins__': builtins}
        run_batch(request, state, send)
        if request.get('judge'):
            state.pop('spec', None)
            state.pop('used', None)
            state.pop('diverged', None)


def serve_call(call, state):
    """A call the judge asked for, on the agent's side: the function's or an opaque result's answer, plain."""
    store = state.setdefault('opaque', {})

    def keep(obj):
        ref = len(store) + 1
        store[ref] = obj
        return ref

    def resolve(tag, key):
        found = store if tag == 'x' else state['globals'] if tag == 'g' else vars(builtins)
        if key not in found:
            raise ValueError('no such value')
        return found[key]

    kind = call.get('kind') if type(call) is dict else None
    if kind == 'call':
        name = call.get('name')
        namespace = state['globals']
        if type(name) is not str or name not in namespace:
            raise NameError("name '%s' is not defined" % (name,))
        args = [decode(arg, resolve=resolve) for arg in call.get('args') or ()]
        kwargs = {str(key): decode(arg, resolve=resolve) for key, arg in call.get('kwargs') or ()}
        value = namespace[name](*args, **kwargs)
    elif kind == 'opaque':
        obj = resolve('x', call.get('ref'))
        how = {'iter': list, 'len': len, 'bool': bool, 'str': str, 'repr': repr, 'float': float,
               'int': int, 'index': operator.index}.get(call.get('how'))
        if how is None:
            raise ValueError('no such question')
        value = how(obj)
    else:
        raise ValueError('no such call')
    return {'value': encode(value, keep)}


def run_batch(request, state, send):
    codes = request['codes']
    for index, code in enumerate(codes):
        if request.get('speculate') and index == len(codes) - 1:
            result = run_one(request['speculate'], False, state, speculate)
        else:
            result = run_one(code, request.get('wrap', False), state)
        if os.getpid() != state['me']:
            os._exit(0)  # a process the user code forked came back here: it has no business in the loop
        result['k'] = 'r'
        result['i'] = index
        send(result)
        if index < len(codes) - 1:
            # In step with the driver: it has read this code's output before the next code writes any.
            state['receive']()
    end = {'k': 'end', 'used': state.get('used'), 'diverged': state.get('diverged', False)}
    if request.get('keep'):
        state['globals'] = {}  # the run's names go now, not with the next run
        end['clean'] = still_clean(state)
    send(end)


class Unknown(Exception):
    pass


def literal_calls(source, names):
    """The calls of names in a test, in the order Python makes them, while their arguments are literals:
    ([(name, args, kwargs)], complete)."""
    found = []

    def visit(node):
        if isinstance(node, (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp, ast.NamedExpr)):
            if any(isinstance(inner, ast.Call) for inner in ast.walk(node)):
                raise Unknown
            return
        if isinstance(node, ast.Call):
            visit(node.func)
            for arg in node.args:
                visit(arg)
            for keyword in node.keywords:
                visit(keyword.value)
            if isinstance(node.func, ast.Name) and node.func.id in names:
                if any(isinstance(arg, ast.Starred) for arg in node.args) or any(k.arg is None for k in node.keywords):
                    raise Unknown
                args = [ast.literal_eval(arg) for arg in node.args]
                kwargs = [(k.arg, ast.literal_eval(k.value)) for k in node.keywords]
                found.append((node.func.id, args, kwargs))
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    try:
        visit(ast.parse(source))
        return found, True
    except (Unknown, ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return found, False


def speculate(spec, state):
    """In the probe, before the judge asks: the calls of the submitted function that the tests make with
    literal arguments, made in that order (each test's up to the first that raises), each with what it
    returned or raised and wrote. The judge uses an answer only for the very call it was made for."""
    store = state.setdefault('opaque', {})

    def keep(obj):
        store[len(store) + 1] = obj
        return len(store)

    names = [name for name in spec.get('names') or () if type(name) is str]
    namespace = state['globals']
    entries = []
    saved = sys.stdout, sys.stderr
    try:
        for test in spec.get('tests') or ():
            calls, complete = literal_calls(test, names) if type(test) is str else ([], False)
            for name, args, kwargs in calls:
                entry = {'call': [name, [encode(arg) for arg in args], [[key, encode(value)] for key, value in kwargs]]}
                out, err = io.StringIO(), io.StringIO()
                sys.stdout, sys.stderr = out, err
                try:
                    if name not in namespace:
                        raise NameError("name '%s' is not defined" % name)
                    entry['value'] = encode(namespace[name](*args, **dict(kwargs)), keep)
                except KeyboardInterrupt:
                    raise
                except BaseException as error:
                    entry['exc'] = describe(error)
                finally:
                    sys.stdout, sys.stderr = saved
                entry['out'], entry['err'] = str(out.getvalue()), str(err.getvalue())
                entries.append(entry)
                if 'exc' in entry:
                    break  # the test ends there
            if not complete:
                break  # what comes next depends on answers: the judge asks for it
    finally:
        sys.stdout, sys.stderr = saved
    return {'value': entries}


def reap_killed_children():
    # Children of the user code that the driver's sweep killed (SIGKILL) stay zombies of this process,
    # holding process slots, until someone waits for them; other children are the user's to wait for.
    try:
        with open('/proc/self/task/%d/children' % os.getpid()) as listing:
            children = listing.read().split()
    except OSError:
        return
    for child in children:
        try:
            with open('/proc/%s/stat' % child) as stat:
                fields = stat.read().rsplit(')', 1)[1].split()
            if fields[0] == 'Z' and int(fields[49]) == signal.SIGKILL:
                os.waitpid(int(child), os.WNOHANG)
        except (OSError, ValueError, IndexError):
            pass


def run_one(code, wrap, state, serve=None):
    reap_killed_children()
    reap_copies(state)
    try:
        os.dup2(OUT_W, 1)
        os.dup2(ERR_W, 2)
        os.dup2(NULL, 0)
    except OSError:
        return {'broken': 'the interpreter lost its output channels'}
    out = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, 'w', closefd=False), 65536), encoding='utf-8', errors='backslashreplace')
    err = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, 'w', closefd=False), 65536), encoding='utf-8', errors='backslashreplace')
    sys.stdout, sys.stderr = out, err
    result = {}
    try:
        if wrap and serve is None and not code.strip().startswith('def '):
            try:
                code = wrap_rule(code)
            except BaseException as error:
                return {'action_error': 'Error executing action: %s' % (error,)}
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            if serve is None:
                exec(code, state['globals'])
            else:
                result = serve(code, state)
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    except BaseException as error:
        if os.getpid() != state['me']:
            os._exit(0)
        result = {'exc': describe(error)}
    finally:
        for stream in (out, err):
            try:
                stream.flush()
            except BaseException:
                pass
    return result


