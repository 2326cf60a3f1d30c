# The requests of the Python driver and its main loop (see python-driver.py); loaded last.
def run(request):
    """Runs codes in the agent worker, a copy of it (isolated) or a fresh worker; one result per code."""
    global agent
    target = request['target']
    codes = request['codes']
    limits = request['timeout']
    limits = [float(limit) for limit in limits] if isinstance(limits, list) else [float(limits)] * len(codes)
    timeout = limits[0] if limits else 1.0
    grace = float(request.get('grace', 1.0))
    cap = int(request['cap'])
    global probe
    settled_fresh = False
    tail = {}
    if target in ('fresh', 'judge'):
        worker = take_fresh()  # the kept worker (python-kept-worker.py) or the spare
    else:
        if agent is None:
            fresh_agent()
            settled_fresh = agent_key != '0'  # a branch whose worker could not be forked, or is gone
        elif target != 'probe' and settle_agent():
            settled_fresh = True
        worker = agent
    stay = bool(request.get('stay')) and target == 'copy'
    if target == 'probe':
        message = {'call': request.get('call')}
    else:
        message = {'codes': codes, 'wrap': bool(request.get('wrap')), 'isolated': target == 'copy',
                   'stay': stay, 'judge': target == 'judge', 'renew': target == 'fresh',
                   'keep': KEEP and target in ('fresh', 'judge'), 'proxy': request.get('proxy'),
                   'speculate': request.get('speculate') if stay else None,
                   'spend': stay and bool(request.get('spend'))}
    try:
        worker.ctl.sendall(pack(message))
    except OSError:
        pass
    results = []
    lost = None  # why the worker (or the copy) is gone
    copied = target in ('copy', 'probe')  # the code runs in a fork of the agent's worker
    runner = probe if target == 'probe' else None if target == 'copy' else worker.pid
    out, err = Capture(cap), Capture(cap)
    began = time.time()
    deadline = began + timeout
    interrupted = False
    stray = False  # a timeout happened: processes the code started may still be running
    streams = [worker.ctl, worker.out_r, worker.err_r]
    pidfd = None
    if not copied:
        try:
            pidfd = os.pidfd_open(worker.pid)
            streams.append(pidfd)
        except (AttributeError, OSError):
            pidfd = None
    finished = False
    clean = False  # the worker found its process as it was before the run (python-kept-worker.py)
    while not finished:
        wait = max(0.0, deadline - time.time())
        try:
            ready, _, _ = select.select(streams, [], [], wait)
        except InterruptedError:
            continue
        if worker.out_r in ready and not drain(worker.out_r, out):
            streams.remove(worker.out_r)
        if worker.err_r in ready and not drain(worker.err_r, err):
            streams.remove(worker.err_r)
        if pidfd is not None and pidfd in ready and worker.ctl not in ready:
            lost = 'died'
            break
        if worker.ctl in ready:
            try:
                data = recv_chunk(worker.ctl)
            except OSError:
                data = b''
            if not data:
                lost = 'eof'
                break
            worker.buffer += data
            while len(worker.buffer) >= 4:
                size = struct.unpack('>I', worker.buffer[:4])[0]
                if size > MAX_FRAME:
                    lost = 'garbage'
                    break
                if len(worker.buffer) < 4 + size:
                    break
                try:
                    msg = json.loads(worker.buffer[4:4 + size])
                except ValueError:
                    msg = {'k': 'garbage'}
                worker.buffer = worker.buffer[4 + size:]
                kind = msg.get('k') if isinstance(msg, dict) else None
                if kind == 'pid' and runner is None:
                    runner = int(msg['pid'])
                elif kind == 'r' and len(results) < len(codes):
                    drain(worker.out_r, out)
                    drain(worker.err_r, err)
                    results.append(make_result(msg, out, err, interrupted, timeout))
                    results[-1]['ms'] = (time.time() - began) * 1000
                    out, err = Capture(cap), Capture(cap)
                    timeout = limits[min(len(results), len(limits) - 1)]
                    began = time.time()
                    deadline = began + timeout
                    interrupted = False
                    if msg.get('broken'):
                        lost = 'broken'
                    elif len(results) < len(codes):
                        try:
                            worker.ctl.sendall(pack({'go': True}))
                        except OSError:
                            pass
                elif kind == 'end':
                    tail = {'used': msg.get('used'), 'diverged': msg.get('diverged')} if target == 'judge' else {}
                    clean = msg.get('clean') is True
                    if not copied or stay or target == 'probe':
                        finished = True
                elif kind == 'call' and target == 'judge':
                    # The judge asks the agent's side, through the host; its clock stops meanwhile.
                    paused = time.time()
                    host_send({'call': msg.get('call')})
                    try:
                        reply = host_recv()
                    except EOFError:
                        kill_everything()
                        os._exit(0)
                    answer = reply.get('answer') if isinstance(reply, dict) else None
                    try:
                        worker.ctl.sendall(pack({'answer': answer}))
                    except OSError:
                        pass
                    deadline += time.time() - paused
                elif kind == 'forkdone':
                    if len(results) < len(codes):
                        lost = 'copy'
                    finished = True
                else:
                    lost = 'garbage'
                if lost or finished:
                    break
            if lost:
                break
        if time.time() >= deadline and not finished:
            if not interrupted and runner is not None:
                interrupted = True
                stray = True
                kill_others({runner} | ({agent.pid} if agent is not None else set()))
                try:
                    os.kill(runner, signal.SIGINT)
                except OSError:
                    pass
                deadline = time.time() + grace
            else:
                lost = 'timeout'
                break
    if pidfd is not None:
        os.close(pidfd)
    if stray and not lost:
        # What the interrupted code forked after the first sweep (a fork bomb's survivors).
        kill_others({worker.pid, runner} | ({agent.pid} if agent is not None else set()))
    note = None
    restarted = False
    if lost:
        drain(worker.out_r, out)
        drain(worker.err_r, err)
        why = None
        if lost == 'timeout':
            why = 'the action timed out after %g s and was killed' % timeout
        elif lost in ('broken', 'garbage'):
            why = 'the interpreter lost its control channel'
        if copied:
            probe = None
            if runner is not None:
                try:
                    os.killpg(runner, signal.SIGKILL)
                except OSError:
                    pass
            if lost != 'copy':
                # Wait for the agent worker to report its copy gone; if it cannot, restart it.
                if not wait_forkdone(worker, 5.0):
                    fresh_agent()
                    restarted = True
            why = why or 'the test process died'
        else:
            status = None
            try:
                os.killpg(worker.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                _, status = os.waitpid(worker.pid, 0)
            except ChildProcessError:
                pass
            if why is None:
                why = exit_text(status) if status is not None else 'the interpreter stopped'
            if target == 'agent':
                fresh_agent()
                restarted = True
        if len(results) < len(codes):
            text, truncated = out.text()
            results.append({'output': text if lost == 'timeout' else None, 'error': 'Error: ' + why, 'ok': False,
                            'timed_out': lost == 'timeout', 'truncated': truncated, 'died': True})
        while len(results) < len(codes):
            results.append({'output': None, 'error': 'Error: not run: ' + why, 'ok': False, 'died': True})
        note = why
    if stay and not lost:
        probe = runner
    if target in ('fresh', 'judge'):
        keep_or_end(worker, clean and not lost and not stray)
    reap()
    reply = {'results': results, 'restarted': restarted or (settled_fresh and target == 'agent'), 'note': note}
    reply.update(tail)
    return reply


def call(request):
    """One call of the judge's, answered by the probe (a copy of the agent's worker)."""
    if probe is None or agent is None:
        return {'results': [{'output': None, 'error': 'Error: the test process died', 'ok': False, 'died': True}],
                'restarted': False, 'note': 'no probe'}
    return run(dict(request, target='probe', codes=[None]))


def end_probe():
    """Tells the probe to end (any request but a call does): the agent's worker reports it gone, and the
    next run in it first waits for that report (see settle_agent), so no host request waits for it."""
    global probe
    if probe is None:
        return
    probe = None
    try:
        agent.ctl.sendall(pack({'done': True}))
        agent.releasing = True
    except OSError:
        fresh_agent()


def settle_agent():
    """Before the agent's worker runs anything: the report of an ended probe, or a fresh worker. True
    when the worker had to be replaced (its globals are gone)."""
    if not agent.releasing:
        return False
    agent.releasing = False
    if wait_forkdone(agent, 5.0):
        return False
    fresh_agent()
    return True


def wait_forkdone(worker, seconds):
    deadline = time.time() + seconds
    while True:
        msg = next_message(worker, deadline - time.time())
        if msg is None:
            return False
        if isinstance(msg, dict) and msg.get('k') == 'forkdone':
            return True


def next_message(worker, seconds):
    """The worker's next message on its control socket; None when none comes within seconds or it is gone."""
    deadline = time.time() + seconds
    while True:
        if len(worker.buffer) >= 4:
            size = struct.unpack('>I', worker.buffer[:4])[0]
            if len(worker.buffer) >= 4 + size:
                data = worker.buffer[4:4 + size]
                worker.buffer = worker.buffer[4 + size:]
                try:
                    return json.loads(data)
                except ValueError:
                    return {'k': 'garbage'}
        left = deadline - time.time()
        if left <= 0:
            return None
        ready, _, _ = select.select([worker.ctl], [], [], left)
        if not ready:
            continue
        try:
            data = recv_chunk(worker.ctl)
        except OSError:
            return None
        if not data:
            return None
        worker.buffer += data


def make_result(msg, out, err, interrupted, timeout):
    out_text, out_cut = out.text()
    err_text, err_cut = err.text()
    result = {'truncated': out_cut or err_cut, 'raw_output': out_text, 'bytes': out.total + err.total}
    if 'action_error' in msg:
        result.update(output=None, error=msg['action_error'], ok=False, action_error=True)
    elif 'exc' in msg:
        error = msg['exc']
        if interrupted:
            error = 'Error: the action timed out after %g s and was interrupted' % timeout
        result.update(output=None, error=error, ok=False)
    elif 'broken' in msg:
        result.update(output=None, error='Error: ' + msg['broken'], ok=False)
    else:
        result.update(output=out_text, error=err_text, ok=True)
    if 'value' in msg:
        result['value'] = msg['value']
    if 'value' in msg or 'exc' in msg:
        # What a call wrote, as it wrote it: the judge adds it to the output of the test that called.
        result['stdout'] = out.text(False)[0]
        result['stderr'] = err.text(False)[0]
    if interrupted:
        result['timed_out'] = True
        result['output'] = out_text
    return result


def main():
    global spare
    greeting = {'ready': True, 'pid': os.getpid()}
    if globals().get('DRIVER_CODE'):
        # The code compiled from the source, for the host to give the next drivers (driver-bytecode.ts); in
        # hex, which needs no module: a worker of this driver has the modules of one that was given code.
        greeting['code'] = DRIVER_CODE.hex()
    host_send(greeting)
    while True:
        if WARM and spare is None and host_idle():
            spare = spawn_worker(idle=True)  # when no request waits: off the host's way (python-warm-pool.py)
        try:
            request = host_recv()
        except EOFError:
            if spare is not None:
                spare.close()
                spare = None
            kill_everything()
            os._exit(0)
        op = request.get('op')
        if op == 'pool':
            host_send(pool_stats())  # a question about the pool: no probe ends, no agent changes
            continue
        if op != 'call':
            end_probe()
            if op == 'drop':
                host_send({'ok': end_branch(str(request.get('agent', '0')))})
                continue
            select_agent(request.get('agent', '0'))
        if op == 'reset':
            # With other branches alive (compat upstream's scoring resets the agent's interpreter), only
            # this agent's worker is replaced; a new episode's reset comes when it is the last.
            host_send({'ok': True, 'clean': fresh_agent(slate=not (set(agents) - {agent_key} or pending))})
        elif op == 'run':
            host_send(run(request))
            if request.get('target') in ('fresh', 'judge') and spare is None and not WARM:
                spare = spawn_worker()  # after the answer: off the next run's way
        elif op == 'call':
            host_send(call(request))
        elif op == 'fork':
            host_send(fork(request))
        elif op == 'ping':
            host_send({'ok': True})
        else:
            host_send({'error': 'unknown op %r' % (op,)})


main()
