"""Studies register themselves (overhead.studies): publish and the index read the registration.

A study folder whose name says nothing (``figures/my-run``) is published as what its
registration says: a campaign with its own tidy folder, not guessed from the name.
"""

from __future__ import annotations

import json

import pytest

from overhead import studies
from overhead.errors import InputError
from overhead.paths import ROOT
from overhead.seeds import index


def test_a_registration_round_trips_with_paths_inside_the_checkout_kept_relative(tmp_path):
    tidy = ROOT / "data" / "tidy" / "local-quick"
    path = studies.register(tmp_path / "my-run", kind="campaign", title="RC25482 live: local-quick",
                            tidy=tidy, campaign="local-quick", inputs=[tmp_path / "x"])
    doc = json.loads(path.read_text())
    assert doc["tidy"] == "data/tidy/local-quick" and doc["inputs"] == [str((tmp_path / "x").resolve())]
    reg = studies.read(tmp_path / "my-run")
    assert (reg.name, reg.kind, reg.campaign, reg.tidy) == ("my-run", "campaign", "local-quick", tidy)
    assert [r.name for r in studies.registered(tmp_path)] == ["my-run"]
    assert studies.read(tmp_path) is None  # no registration: None, not an error


@pytest.mark.parametrize(("text", "field"), [("[]", "JSON object"), ('{"kind": "seed"}', "'title'"),
                                             ('{"kind": "paper", "title": "t"}', "'kind'"),
                                             ("{", "JSON")])
def test_a_broken_registration_names_its_file_and_field(tmp_path, text, field):
    (tmp_path / "study.json").write_text(text)
    with pytest.raises(InputError, match=f"study.json.*{field}"):
        studies.read(tmp_path)
    with pytest.raises(InputError, match="not one of"):
        studies.register(tmp_path / "x", kind="paper", title="t")


def test_publish_takes_kind_campaign_and_tidy_from_the_registration(tmp_path):
    from overhead import publish

    folder = tmp_path / "figures" / "whatever"
    folder.mkdir(parents=True)
    (folder / "report.html").write_text("<html><head><title>t</title></head></html>")
    (folder / "t.csv").write_text("a,b\n1,2\n")
    data = tmp_path / "data"
    studies.register(folder, kind="campaign", title="A live run", tidy=tmp_path / "elsewhere",
                     campaign="local-quick")
    st = publish.study(folder, data=data)
    assert (st.kind, st.campaign, st.tidy) == ("campaign", "local-quick", (tmp_path / "elsewhere").resolve())
    assert st.raw == data / "raw" / "local-quick"
    # the index lists it under the registered title, not the page's <title>
    page = index.write(tmp_path / "figures").read_text()
    assert "href='whatever/report.html'>A live run</a>" in page
