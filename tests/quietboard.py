"""The hardware interface's outputs, doing nothing: for stand-in boards in tests that
watch only the lines the firmware writes."""


class Quiet:
    def show(self, frame):
        pass

    def led(self, box, on):
        pass

    def tone(self, freq, ms):
        pass

    def service(self, now):
        pass
