"""The real UCR archive folder's protocol, shared by the studies that read it.

``bash ../shared/data/ucr_archive.sh DEST`` builds 59 UCR 2018 datasets (ACSF1 to Herring). 46
of them have every published result of ``../shared/data/README.md``; in case-insensitive
order, the first 23 (ACSF1 to Earthquakes) are the *choice* datasets a study may fit or choose
on, the other 23 (ECG200 to Herring) confirm, and the 13 without every published result are
reported apart.
"""

from __future__ import annotations

#: the datasets a study may fit or choose on (benchmarks/cost_model/ fits its model on them)
CHOICE = (
    "ACSF1", "Adiac", "ArrowHead", "BME", "Beef", "BeetleFly", "BirdChicken", "CBF", "Car",
    "Chinatown", "ChlorineConcentration", "CinCECGTorso", "Coffee", "Computers", "CricketX",
    "CricketY", "CricketZ", "Crop", "DiatomSizeReduction", "DistalPhalanxOutlineAgeGroup",
    "DistalPhalanxOutlineCorrect", "DistalPhalanxTW", "Earthquakes",
)

#: the datasets that confirm what the choice datasets chose: no choice reads them
CONFIRM = (
    "ECG200", "ECG5000", "ECGFiveDays", "EOGHorizontalSignal", "EOGVerticalSignal",
    "ElectricDevices", "EthanolLevel", "FaceAll", "FaceFour", "FacesUCR", "FiftyWords", "Fish",
    "FordA", "FordB", "FreezerRegularTrain", "FreezerSmallTrain", "GunPoint", "GunPointAgeSpan",
    "GunPointMaleVersusFemale", "GunPointOldVersusYoung", "Ham", "Haptics", "Herring",
)

#: each dataset's domain, the "Type" column of the archive's own summary (DataSummary.csv of
#: the UCR 2018 archive, Dau et al. 2019), which the folder's files do not carry
TYPE = {
    "ACSF1": "DEVICE", "Adiac": "IMAGE", "AllGestureWiimoteX": "SENSOR",
    "AllGestureWiimoteY": "SENSOR", "AllGestureWiimoteZ": "SENSOR", "ArrowHead": "IMAGE",
    "BME": "SIMULATED", "Beef": "SPECTRO", "BeetleFly": "IMAGE", "BirdChicken": "IMAGE",
    "CBF": "SIMULATED", "Car": "SENSOR", "Chinatown": "TRAFFIC",
    "ChlorineConcentration": "SENSOR", "CinCECGTorso": "SENSOR", "Coffee": "SPECTRO",
    "Computers": "DEVICE", "CricketX": "MOTION", "CricketY": "MOTION", "CricketZ": "MOTION",
    "Crop": "IMAGE", "DiatomSizeReduction": "IMAGE", "DistalPhalanxOutlineAgeGroup": "IMAGE",
    "DistalPhalanxOutlineCorrect": "IMAGE", "DistalPhalanxTW": "IMAGE",
    "DodgerLoopDay": "SENSOR", "DodgerLoopGame": "SENSOR", "DodgerLoopWeekend": "SENSOR",
    "ECG200": "ECG", "ECG5000": "ECG", "ECGFiveDays": "ECG", "EOGHorizontalSignal": "EOG",
    "EOGVerticalSignal": "EOG", "Earthquakes": "SENSOR", "ElectricDevices": "DEVICE",
    "EthanolLevel": "SPECTRO", "FaceAll": "IMAGE", "FaceFour": "IMAGE", "FacesUCR": "IMAGE",
    "FiftyWords": "IMAGE", "Fish": "IMAGE", "FordA": "SENSOR", "FordB": "SENSOR",
    "FreezerRegularTrain": "SENSOR", "FreezerSmallTrain": "SENSOR", "Fungi": "HRM",
    "GestureMidAirD1": "TRAJECTORY", "GestureMidAirD2": "TRAJECTORY",
    "GestureMidAirD3": "TRAJECTORY", "GesturePebbleZ1": "SENSOR", "GesturePebbleZ2": "SENSOR",
    "GunPoint": "MOTION", "GunPointAgeSpan": "MOTION", "GunPointMaleVersusFemale": "MOTION",
    "GunPointOldVersusYoung": "MOTION", "Ham": "SPECTRO", "HandOutlines": "IMAGE",
    "Haptics": "MOTION", "Herring": "IMAGE",
}

#: recordings of a signal over time (sensors, devices, the body's signals, motion, traffic):
#: where a task's information lies in frequency bands, TDI's premise; the rest are image
#: outlines read as series, spectra and simulations (issue 77's split)
RECORDINGS = frozenset({"SENSOR", "DEVICE", "ECG", "EOG", "MOTION", "TRAFFIC", "TRAJECTORY",
                        "HRM"})


def domain(dataset: str) -> str:
    """The dataset's domain: "recordings" or "outlines and the rest" (:data:`TYPE`,
    :data:`RECORDINGS`)."""
    return "recordings" if TYPE[dataset] in RECORDINGS else "outlines and the rest"
