"""No output of the package replaces a file it was made from: a GSD file, a trace, a scene
written with ``to_toml`` or a sweep's table given the path of the scene file a scene was read
from, of its bodies file or of one of its meshes (by that path, a symbolic link or a hard link)
is refused with an exception naming the files, before anything is written, as ``kairos``
refuses it on the command line."""

import glob
import os

import pytest

import kairos

TETRA_OBJ = """v 0 0 0
v 1 0 0
v 0 1 0
v 0 0 1
f 1 3 2
f 1 2 4
f 1 4 3
f 2 3 4
"""

BODIES_XYZ = """2
Lattice="10.0 0 0 0 10.0 0 0 0 10.0" pbc="T T T" Properties=species:S:1:pos:R:3:radius:R:1:vel:R:3
X 1.0 1.0 1.0 0.5 0.3 0.0 0.0
X 3.0 1.0 1.0 0.5 0.0 0.0 0.0
"""


def gas_file(folder):
    path = folder / "in.toml"
    kairos.Scene.gas(20, 0.2, duration=1).to_toml(path)
    return path


def bodies_file_scene(folder):
    (folder / "b.xyz").write_text(BODIES_XYZ)
    path = folder / "b.toml"
    path.write_text(
        'dim = 3\nbodies_file = "b.xyz"\n\n[simulation]\nduration = 1.0\nrestitution = 1.0\n\n'
        "[boundary]\nperiodic = [10.0, 10.0, 10.0]\n"
    )
    return path


def mesh_file_scene(folder):
    mesh = folder / "tetra.obj"
    mesh.write_text(TETRA_OBJ)
    path = folder / "m.toml"
    path.write_text(
        "dim = 3\n\n[simulation]\nduration = 1.0\nrestitution = 1.0\n\n"
        "[[walls]]\nbox = { min = [-5.0, -5.0, -5.0], max = [5.0, 5.0, 5.0] }\n\n"
        f'[[bodies]]\nshape = "mesh"\nmesh = "{mesh}"\nposition = [0.0, 0.0, 0.0]\n'
        "velocity = [1.0, 0.0, 0.0]\n"
    )
    return path, mesh


def names_of(path):
    """The ways to name the file at `path`: itself, a symbolic link and a hard link to it."""
    link, hard = path.with_name("link-" + path.name), path.with_name("hard-" + path.name)
    link.symlink_to(path.name)
    os.link(path, hard)
    return [path, link, hard]


def unchanged(path, before):
    assert path.read_bytes() == before, f"{path} was changed"
    assert not glob.glob(str(path.parent / ".*partial*")), "a partial file was left"


def test_a_gsd_file_never_replaces_the_scene_file(tmp_path):
    path = gas_file(tmp_path)
    before = path.read_bytes()
    scene = kairos.Scene.from_toml(path)
    for name in names_of(path):
        with pytest.raises(ValueError, match="same file as the input") as e:
            kairos.GsdWriter(name, scene)
        assert str(name) in str(e.value) and str(path) in str(e.value)
        unchanged(path, before)


def test_a_trace_never_replaces_the_scene_file(tmp_path):
    path = gas_file(tmp_path)
    before = path.read_bytes()
    scene = kairos.Scene.from_toml(path)
    for name in names_of(path):
        with pytest.raises(ValueError, match=r"\(Simulation trace\) is the same file"):
            kairos.Simulation(scene, trace=name).run()
        unchanged(path, before)
    # Another file is written.
    sim = kairos.Simulation(scene, trace=tmp_path / "run.ktrace")
    sim.run()
    assert kairos.read_trace(tmp_path / "run.ktrace").end_time == 1.0


def test_the_bodies_file_and_the_meshes_are_inputs_too(tmp_path):
    scene_path = bodies_file_scene(tmp_path)
    xyz = tmp_path / "b.xyz"
    before = xyz.read_bytes()
    scene = kairos.Scene.from_toml(scene_path)
    assert scene.n == 2
    for name in names_of(xyz):
        with pytest.raises(ValueError, match="the scene's bodies_file"):
            kairos.GsdWriter(name, scene)
        with pytest.raises(ValueError, match="the scene's bodies_file"):
            kairos.Simulation(scene, trace=name)
        with pytest.raises(ValueError, match="the scene's bodies_file"):
            scene.to_toml(name)
        unchanged(xyz, before)

    scene_path, mesh = mesh_file_scene(tmp_path)
    before = mesh.read_bytes()
    names = names_of(mesh)
    for scene in (
        kairos.Scene.from_toml(scene_path),
        # A scene made in Python reads its meshes' files too.
        kairos.Scene(
            positions=[[0.0, 0.0, 0.0]],
            shapes={"shape": "mesh", "mesh": str(mesh)},
            walls=[{"box": {"min": [-5, -5, -5], "max": [5, 5, 5]}}],
        ),
    ):
        for name in names:
            with pytest.raises(ValueError, match="the mesh of body 0"):
                kairos.GsdWriter(name, scene)
            with pytest.raises(ValueError, match="the mesh of body 0"):
                kairos.Simulation(scene, trace=name)
        unchanged(mesh, before)


def test_to_toml_and_a_sweep_never_replace_the_scene_file(tmp_path):
    path = gas_file(tmp_path)
    before = path.read_bytes()
    scene = kairos.Scene.from_toml(path)
    with pytest.raises(ValueError, match=r"\(Scene.to_toml\) is the same file"):
        scene.to_toml(path)
    with pytest.raises(ValueError, match=r"\(sweep output\) is the same file"):
        kairos.sweep([scene], output=path, progress=False)
    with pytest.raises(ValueError, match=r"\(sweep output\) is the same file"):
        kairos.sweep(
            lambda seed: kairos.Scene.from_toml(path), grid={"seed": [0]}, output=path,
            progress=False,
        )
    unchanged(path, before)
    scene.to_toml(tmp_path / "copy.toml")
    assert kairos.Scene.from_toml(tmp_path / "copy.toml").n == scene.n


def test_a_gsd_file_takes_no_frame_of_a_simulation_of_its_own_path(tmp_path):
    # The writer's scene is made in Python; the simulation's was read from the file the
    # writer would replace when closed.
    path = gas_file(tmp_path)
    before = path.read_bytes()
    sim = kairos.Simulation(kairos.Scene.from_toml(path))
    with pytest.raises(ValueError, match="same file as the input"):
        with kairos.GsdWriter(path, kairos.Scene.gas(20, 0.2, duration=1)) as w:
            w.append(sim)
    unchanged(path, before)


def test_inputs_are_found_after_a_change_of_directory(tmp_path, monkeypatch):
    path = gas_file(tmp_path)
    before = path.read_bytes()
    monkeypatch.chdir(tmp_path)
    scene = kairos.Scene.from_toml("in.toml")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match="same file as the input"):
        kairos.GsdWriter("../in.toml", scene)
    with pytest.raises(ValueError, match="same file as the input"):
        kairos.Simulation(scene, trace=path)
    unchanged(path, before)
    # A file of that name in the new directory is another file.
    kairos.Simulation(scene, trace="in.toml").run()
    assert kairos.read_trace("in.toml").end_time == 1.0
    unchanged(path, before)
